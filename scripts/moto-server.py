"""moto's S3 server, one request at a time: `python3 scripts/moto-server.py PORT`.

moto checks a conditional write (If-None-Match: *, If-Match) and then writes, with nothing between
the two held: two nodes claiming one batch at the same instant can both succeed, which S3 never
allows. Serialising the requests makes each check-and-write atomic, as on S3, so the work queue's
tests and benchmark test the queue, not moto's race.
"""
import sys
import threading

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import run_simple

application = DomainDispatcherApplication(create_backend_app)
lock = threading.Lock()


def serialised(environ, start_response):
    with lock:
        return list(application(environ, start_response))


run_simple("127.0.0.1", int(sys.argv[1]), serialised, threaded=True)
