#!/usr/bin/env python3
"""A loopback HTTP proxy in front of an S3 server that injects faults, for the retry tests.

    fault-proxy.py UPSTREAM_URL FAULTS [--evil-key KEY]

Listens on 127.0.0.1 on a free port and prints "port N" as its first line. FAULTS is a
comma-separated list applied to successive requests, after which requests pass through:
  500       answer 500 InternalError          slowdown  answer 503 SlowDown
  429       answer 429 TooManyRequests        403       answer 403 AccessDenied (not retried)
  drop      close the connection unanswered   delay=S   wait S seconds, then forward
  lost      forward, then close the connection without the answer (the server did it; the client
            never hears)
  pass      forward unchanged
  region=R  answer 301 PermanentRedirect with x-amz-bucket-region: R, as AWS does for a request
            sent to another region than the bucket's
With --evil-key, every listing answers with one object under that key (an unsafe key from a
hostile store). With --kms-etags, the store answers as an AWS bucket with SSE-KMS default
encryption does: every ETag (headers, listings, copy results) is not the object's MD5 (a hash of
its key and real ETag, so two objects of the same content differ), with
`x-amz-server-side-encryption: aws:kms`; the client's If-Match is mapped back. With
--hold-after K, the requests after the K-th are held unanswered (logged "held"), so a client
killed then has had exactly K requests carried out (scripts/bench-kill.sh). With --read-only
PREFIX, every write (PUT, POST, DELETE) of a key starting with PREFIX answers 403 AccessDenied
(logged "read-only"), as a bucket policy granting that prefix read access only does. With
--policy KEY=PREFIX[,PREFIX…] (repeatable), a write signed with the access key KEY (its
Signature V4 header or presigned query) is allowed only under those key prefixes, never under
one written "!PREFIX" (an explicit deny wins, as in IAM), and otherwise answers 403
AccessDenied (logged "denied KEY"), as an IAM policy for that key does. With --tls
CERT KEY, it answers HTTPS with that certificate chain and key (PEM files) instead of HTTP. Each request is logged as "METHOD PATH -> OUTCOME". The Host header is
forwarded unchanged, so the client's Signature V4 still verifies upstream.
"""
import hashlib
import http.client
import re
import signal
import socket
import ssl
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# A parent may start this with signals blocked (Foundation's Process on Linux does): let SIGTERM end it.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
upstream = urllib.parse.urlsplit(sys.argv[1])
faults = [f for f in sys.argv[2].split(",") if f] if len(sys.argv) > 2 else []
evil_key = sys.argv[sys.argv.index("--evil-key") + 1] if "--evil-key" in sys.argv else None
kms = "--kms-etags" in sys.argv
hold_after = int(sys.argv[sys.argv.index("--hold-after") + 1]) if "--hold-after" in sys.argv else None
read_only = sys.argv[sys.argv.index("--read-only") + 1] if "--read-only" in sys.argv else None
tls = sys.argv[sys.argv.index("--tls") + 1:sys.argv.index("--tls") + 3] if "--tls" in sys.argv else None
policies = {}
for index, argument in enumerate(sys.argv):
    if argument == "--policy":
        access_key, prefixes = sys.argv[index + 1].split("=", 1)
        policies[access_key] = [p for p in prefixes.split(",") if p]


def allowed(key, prefixes):
    """IAM's rule: an explicit deny ("!prefix") wins over any allow."""
    if any(key.startswith(p[1:]) for p in prefixes if p.startswith("!")):
        return False
    return any(key.startswith(p) for p in prefixes if not p.startswith("!"))


def signer(handler):
    """The access key a request is signed with: Signature V4's header, else a presigned URL's."""
    match = re.search(r"Credential=([^/,]+)/", handler.headers.get("Authorization", ""))
    if match:
        return match.group(1)
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(handler.path).query)
    credential = query.get("X-Amz-Credential", [""])[0]
    return credential.split("/", 1)[0] or None
arrived = 0
real_etags = {}  # fake → real, for If-Match
log_lock = threading.Lock()


def fake_etag(key, real):
    fake = hashlib.md5(f"kms:{key}:{real}".encode()).hexdigest()
    with lock:
        real_etags[fake] = real
    return fake


def fake_listing(body):
    def contents(match):
        block = match.group(0)
        key = re.search(r"<Key>(.*?)</Key>", block, re.S)
        return re.sub(r"<ETag>(?:&quot;|\")?([^<&\"]*)(?:&quot;|\")?</ETag>",
                      lambda e: f"<ETag>&quot;{fake_etag(key.group(1) if key else '', e.group(1))}&quot;</ETag>", block)
    return re.sub(r"<Contents>.*?</Contents>", contents, body.decode(errors="replace"), flags=re.S).encode()
lock = threading.Lock()
HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection"}


def next_fault():
    with lock:
        return faults.pop(0) if faults else "pass"


def error_body(code, message):
    return (f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>{code}</Code>'
            f"<Message>{message}</Message></Error>").encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def log(self, outcome):
        with log_lock:  # one whole line per request, whichever threads answer at once
            print(f"{self.command} {self.path} -> {outcome}", flush=True)

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length", 0) or 0))

    def answer(self, status, body, headers=(), length=None):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def handle_any(self):
        global arrived
        body = self.read_body()
        with lock:
            arrived += 1
            number = arrived
        if hold_after is not None and number > hold_after:
            self.log("held")
            while True:
                time.sleep(1)
        key = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path).split("/", 2)[2:]
        if read_only is not None and self.command in ("PUT", "POST", "DELETE") and key \
                and key[0].startswith(read_only):
            self.log("read-only")
            return self.answer(403, error_body("AccessDenied", "this prefix is read-only for the job"))
        access_key = signer(self)
        if access_key in policies and self.command in ("PUT", "POST", "DELETE") and \
                not (key and allowed(key[0], policies[access_key])):
            self.log(f"denied {access_key}")
            return self.answer(403, error_body("AccessDenied", f"{access_key} may not write here"))
        fault = next_fault()
        canned = {"500": (500, "InternalError"), "slowdown": (503, "SlowDown"),
                  "429": (429, "TooManyRequests"), "403": (403, "AccessDenied")}
        if fault in canned:
            status, code = canned[fault]
            self.log(fault)
            return self.answer(status, error_body(code, "injected by fault-proxy"))
        if fault.startswith("region="):
            self.log(fault)
            return self.answer(301, error_body("PermanentRedirect", "The bucket you are attempting to access must be "
                                                "addressed using the specified endpoint."),
                               [("x-amz-bucket-region", fault.split("=", 1)[1])])
        if fault == "drop":
            self.log("drop")
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if fault.startswith("delay="):
            time.sleep(float(fault.split("=", 1)[1]))
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        if evil_key is not None and self.command == "GET" and query.get("list-type") == ["2"]:
            self.log("evil listing")
            listing = ('<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><IsTruncated>false</IsTruncated>'
                       f"<Contents><Key>{evil_key}</Key><Size>4</Size><ETag>&quot;0&quot;</ETag></Contents>"
                       "</ListBucketResult>").encode()
            return self.answer(200, listing, [("Content-Type", "application/xml")])
        connection = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=60)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
        if kms:
            for name in list(headers):
                if name.lower() == "if-match":
                    fake = headers[name].strip('"')
                    with lock:
                        headers[name] = f'"{real_etags.get(fake, fake)}"'
        connection.request(self.command, self.path, body=body if body or self.command in ("PUT", "POST") else None,
                           headers=headers)
        response = connection.getresponse()
        data = response.read()
        connection.close()
        if fault == "lost":
            self.log(f"lost {response.status}")
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.log(f"{response.status}" + (f" after {fault}" if fault != "pass" else ""))
        # A HEAD answer carries the object's length, with no body.
        length = response.getheader("Content-Length") if self.command == "HEAD" else None
        answer_headers = [(k, v) for k, v in response.getheaders()
                          if k.lower() not in HOP and k.lower() != "content-length"]
        if kms:
            key = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
            answer_headers = [(k, f'"{fake_etag(key, v.strip(chr(34)))}"' if k.lower() == "etag" else v)
                              for k, v in answer_headers] + [("x-amz-server-side-encryption", "aws:kms")]
            if self.command == "GET" and query.get("list-type") == ["2"]:
                data = fake_listing(data)
            elif self.command == "PUT" and b"<CopyObjectResult" in data:
                data = re.sub(rb"<ETag>(?:&quot;|\")?([^<&\"]*)(?:&quot;|\")?</ETag>",
                              lambda e: f"<ETag>&quot;{fake_etag(key, e.group(1).decode())}&quot;</ETag>".encode(), data)
        self.answer(response.status, data, answer_headers, length)

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = handle_any


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
if tls:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tls[0], tls[1])
    server.socket = context.wrap_socket(server.socket, server_side=True)
print(f"port {server.server_address[1]}", flush=True)
server.serve_forever()
