#!/usr/bin/env python3
"""Loopback HTTP server for scripts/check-reliability: one failure mode per run.

usage: attack_server.py MODE PORT [ARG...]
Metadata sources (GET):
  slow3        answer every request after 3 s (404 JSON)
  hang         accept and never answer
  429          HTTP 429 with Retry-After: 3600
  echo         HTTP 400 whose error message quotes the request (query and headers, encoded)
  ok           404 for everything (the book is unknown)
  books        Google Books knows every ISBN (a minimal volume titled "Book <isbn>"); a title
               search (intitle:) answers a volume of that title with an ISBN made from it
  escapes      like books, but titles and authors hold ESC[2J, OSC 52, OSC 0, C1, U+202E, NUL
  othervolume  like books, but the volume lists another ISBN than the one asked for
Vision providers (POST) and redirects (any method):
  quote FORM     HTTP 401 quoting the request's credential (Authorization, x-api-key,
                 x-goog-api-key or ?key=) as FORM: raw, unicode (\\u escapes), percent, base64
  redirect STATUS PORT   STATUS with Location: the same path on 127.0.0.1:PORT
  witness FILE   answers 200 {} and appends each request's method, path and headers to FILE
  gzipbomb       200, Content-Encoding: gzip, 4.6 MB of gzip that inflates to 1 GB of zeros
  endless        200 and spaces for ever, as fast as the client reads
  trickle        200 with Content-Length 100000, one byte a second
  entries N      an OpenAI reply listing N spines
  longtitle      an OpenAI reply whose one spine has a 1 MB title
  nested         an OpenAI reply of "[" and 200,000 "{" never closed
  vision429      HTTP 429 with Retry-After: 999999
  shelf          an OpenAI reply listing the spines "Book Title <n>" (n = 1..8), and Google
                 Books answers those titles (as `books`)
"""
import base64, hashlib, http.server, json, socketserver, sys, time, urllib.parse, zlib

MODE, PORT, ARGS = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
ESCAPES = "\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;owned\x07\x9b31m\u202e\x00"


def isbn13(seed):
    """A valid ISBN-13 (978...) made from any text."""
    body = "978" + str(int(hashlib.sha1(seed.encode()).hexdigest(), 16))[:9]
    check = (10 - sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(body)) % 10) % 10
    return body + str(check)


def openai(text):
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10}}


def gzip_bomb():
    """About 4.6 MB of gzip inflating to 1 GB of zeros (level 1: made in 2 s on a busy machine,
    where level 9's 1 MB took longer than the script waits for a server)."""
    packer = zlib.compressobj(1, zlib.DEFLATED, 31)
    zeros = bytes(1 << 20)
    return b"".join(packer.compress(zeros) for _ in range(1024)) + packer.flush()


BOMB = gzip_bomb() if MODE == "gzipbomb" else b""


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_json(self, status, payload, headers=()):
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def credential(self):
        auth = self.headers.get("Authorization", "")
        if auth.lower().startswith("bearer "):
            return auth[7:]
        for name in ("x-api-key", "x-goog-api-key"):
            if self.headers.get(name):
                return self.headers.get(name)
        return urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query).get("key", [""])[0]

    def volume(self, isbn, title=None, listed=None):
        text = title or "Book " + isbn
        author = "A. Author"
        if MODE == "escapes":
            text, author = "Book" + ESCAPES + " " + isbn, "A." + ESCAPES + "Author"
        return {"volumeInfo": {"title": text, "authors": [author],
                               "industryIdentifiers": [{"type": "ISBN_13", "identifier": listed or isbn}]}}

    def books(self):
        query = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query).get("q", [""])[0]
        if query.startswith("isbn:"):
            isbn = query[5:]
            listed = isbn13("other" + isbn) if MODE == "othervolume" else None
            return self.send_json(200, {"kind": "books#volumes", "totalItems": 1, "items": [self.volume(isbn, listed=listed)]})
        title = query.split("intitle:")[-1].split("+inauthor:")[0].split(" inauthor:")[0].strip().strip('"')
        if not title:
            return self.send_json(200, {"kind": "books#volumes", "totalItems": 0})
        return self.send_json(200, {"kind": "books#volumes", "totalItems": 1, "items": [self.volume(isbn13(title), title=title)]})

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def answer(self):
        if MODE == "hang":
            time.sleep(3600)
            return
        if MODE == "slow3":
            time.sleep(3)
            return self.send_json(404, {"error": "not found"})
        if MODE == "429":
            return self.send_json(429, {"error": "slow down"}, [("Retry-After", "3600")])
        if MODE == "echo":
            key = self.headers.get("X-Goog-Api-Key", "")
            quoted = "%s key=%s form=%s raw=%s" % (
                self.path, urllib.parse.quote(key, safe=""), urllib.parse.quote_plus(key), key)
            return self.send_json(400, {"error": {"code": 400, "message": "Invalid: " + quoted,
                                                  "errors": [{"reason": "invalid", "message": quoted}]}})
        if MODE == "quote":
            key = self.credential()
            form = {"raw": key, "unicode": "".join("\\u%04x" % ord(c) for c in key),
                    "percent": urllib.parse.quote(key, safe=""), "base64": base64.b64encode(key.encode()).decode()}[ARGS[0]]
            # The message is written into the JSON text as is, so \u escapes reach the client's parser.
            body = ('{"error": {"message": "Incorrect API key provided: %s", "type": "invalid_request_error",'
                    ' "code": "invalid_api_key"}}' % form).encode()
            self.send_response(401)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            return self.wfile.write(body)
        if MODE == "redirect":
            self.send_response(int(ARGS[0]))
            self.send_header("Location", "http://127.0.0.1:%s%s" % (ARGS[1], self.path))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if MODE == "witness":
            with open(ARGS[0], "a") as log:
                log.write("%s %s %s\n" % (self.command, self.path, json.dumps(dict(self.headers))))
            return self.send_json(200, {})
        if MODE == "gzipbomb":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(BOMB)))
            self.end_headers()
            return self.wfile.write(BOMB)
        if MODE == "endless":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Connection", "close")
            self.end_headers()
            chunk = b" " * 65536
            try:
                while True:
                    self.wfile.write(chunk)
            except OSError:
                return
        if MODE == "trickle":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            try:
                while True:
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(1)
            except OSError:
                return
        if MODE == "entries":
            spines = [{"text": "B%d" % n} for n in range(int(ARGS[0]))]
            return self.send_json(200, openai(json.dumps({"spines": spines})))
        if MODE == "longtitle":
            title = "Endless Title " * 75000
            return self.send_json(200, openai(json.dumps({"spines": [{"text": title, "title": title}]})))
        if MODE == "nested":
            return self.send_json(200, openai("[" + "{" * 200000))
        if MODE == "vision429":
            return self.send_json(429, {"error": {"message": "Rate limit reached", "code": "rate_limit_exceeded"}},
                                  [("Retry-After", "999999")])
        if self.command == "POST" and MODE in ("shelf", "escapes"):
            if MODE == "escapes":
                spines = [{"text": "Shelf" + ESCAPES + "Book", "title": "Shelf" + ESCAPES + "Book", "author": "X" + ESCAPES}]
            else:
                spines = [{"text": "Book Title %d" % n, "title": "Book Title %d" % n, "author": "A. Author"} for n in range(1, 9)]
            return self.send_json(200, openai(json.dumps({"spines": spines})))
        if MODE in ("books", "escapes", "othervolume", "shelf"):
            return self.books()
        return self.send_json(404, {"error": "notfound"})

    def do_GET(self):
        self.answer()

    def do_POST(self):
        if MODE not in ("trickle", "endless", "hang"):
            self.body()
        self.answer()


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


Server(("127.0.0.1", PORT), Handler).serve_forever()
