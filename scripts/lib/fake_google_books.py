"""A loopback stand-in for Google Books used by the benchmarks: answers every
`/books/v1/volumes?q=isbn:N` with one synthetic volume for N, so a benchmark can warm the
local cache without the network. Prints the port it listens on, then serves until killed."""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        url = urlparse(self.path)
        query = parse_qs(url.query).get("q", [""])[0]
        if url.path != "/books/v1/volumes" or not query.startswith("isbn:"):
            self.send_error(404)
            return
        isbn = query[5:]
        body = json.dumps({"kind": "books#volumes", "totalItems": 1, "items": [{"volumeInfo": {
            "title": f"Benchmark Book {isbn}", "authors": [f"Author {isbn[-4:]}"],
            "industryIdentifiers": [{"type": "ISBN_13", "identifier": isbn}],
            "publishedDate": "2020", "pageCount": 100, "language": "en"}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
