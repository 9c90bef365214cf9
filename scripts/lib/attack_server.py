#!/usr/bin/env python3
"""Loopback HTTP server for scripts/check-reliability: one failure mode per run.

usage: attack_server.py MODE PORT
  slow3     answer every request after 3 s (404 JSON)
  hang      accept and never answer
  429       HTTP 429 with Retry-After: 3600
  echo      HTTP 400 whose error message quotes the request (query and headers, encoded)
  ok        404 for everything (the book is unknown)
  books     Google Books knows every ISBN (a minimal volume titled "Book <isbn>")
"""
import http.server, json, socketserver, sys, time, urllib.parse

MODE, PORT = sys.argv[1], int(sys.argv[2])


class Handler(http.server.BaseHTTPRequestHandler):
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

    def do_GET(self):
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
        if MODE == "books":
            query = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query).get("q", [""])[0]
            isbn = query.replace("isbn:", "")
            volume = {"volumeInfo": {"title": "Book " + isbn, "authors": ["A. Author"],
                                     "industryIdentifiers": [{"type": "ISBN_13", "identifier": isbn}]}}
            return self.send_json(200, {"kind": "books#volumes", "totalItems": 1, "items": [volume]})
        return self.send_json(404, {"error": "notfound"})


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


Server(("127.0.0.1", PORT), Handler).serve_forever()
