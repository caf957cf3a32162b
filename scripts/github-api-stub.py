#!/usr/bin/env python3
"""A stand-in for the two GitHub REST endpoints pipeline reads, on 127.0.0.1, for tests.

    github-api-stub.py ROOT TOKEN

Serves GET /repos/<owner>/<repo>/<path> from ROOT/<owner>/<repo>/<path>.json (a run:
actions/runs/<id>.json; a commit's pull requests: commits/<sha>/pulls.json) to a request whose
Authorization is `Bearer TOKEN`; 401 without it, 404 for a file that is not there. Prints
`port N` first, then one line per request: `GET PATH -> STATUS`. Not GitHub: no pagination, no
rate limits, no checks of the token's permissions; the answers are the files a test writes, in
GitHub's shapes (docs.github.com/rest/actions/workflow-runs, /rest/commits/commits).
"""
import http.server
import os
import sys

ROOT, TOKEN = sys.argv[1], sys.argv[2]


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        status, body = self.answer()
        print(f"GET {self.path} -> {status}", flush=True)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def answer(self):
        if self.headers.get("Authorization") != f"Bearer {TOKEN}":
            return 401, b'{"message": "Bad credentials"}'
        path = self.path.split("?")[0]
        if not path.startswith("/repos/") or ".." in path:
            return 404, b'{"message": "Not Found"}'
        file = os.path.join(ROOT, path[len("/repos/"):] + ".json")
        if not os.path.isfile(file):
            return 404, b'{"message": "Not Found"}'
        with open(file, "rb") as handle:
            return 200, handle.read()

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"port {server.server_address[1]}", flush=True)
server.serve_forever()
