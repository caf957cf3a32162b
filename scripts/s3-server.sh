#!/usr/bin/env bash
# A real S3-compatible server on 127.0.0.1 for the tests: OpenStack Swift with its s3api middleware
# (strict AWS Signature V4 checks, like AWS itself), single node, data in a temporary folder.
# Usage: scripts/s3-server.sh start [PORT]   prints the endpoint and leaves the server running
#        scripts/s3-server.sh stop
# Credentials: access key `test:tester`, secret `testing`, region us-east-1; a second pair,
# `test:pr` / `pr-testing`, for a pull request's jobs (fault-proxy.py --policy fences what it writes).
set -euo pipefail
state="${PIPELINE_S3_STATE:-/tmp/pipeline-s3-server}"
command="${1:-start}" port="${2:-8080}"

stop() {
    if [[ -f "$state/pids" ]]; then
        while read -r pid; do kill "$pid" 2>/dev/null || true; done < "$state/pids"
        rm -f "$state/pids"
    fi
}

if [[ "$command" == "stop" ]]; then stop; exit 0; fi

# Install once (≈20 s). python3-swiftclient is not installed: its /usr/bin/swift would shadow the toolchain.
packages=(swift-proxy swift-object swift-container swift-account memcached)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [[ ${#missing[@]} -gt 0 ]]; then
    sudo=""; [[ "$(id -u)" -ne 0 ]] && sudo="sudo"
    echo "s3-server: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
        || { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }
fi

stop
rm -rf "$state"
mkdir -p "$state/devices/d1" "$state/run"
cd "$state"
for kind in object container account; do
    swift-ring-builder "$kind.builder" create 8 1 1 >/dev/null
done
swift-ring-builder object.builder add r1z1-127.0.0.1:6200/d1 1 >/dev/null
swift-ring-builder container.builder add r1z1-127.0.0.1:6201/d1 1 >/dev/null
swift-ring-builder account.builder add r1z1-127.0.0.1:6202/d1 1 >/dev/null
for kind in object container account; do swift-ring-builder "$kind.builder" rebalance >/dev/null 2>&1 || true; done

cat > swift.conf <<CONF
[swift-hash]
swift_hash_path_suffix = pipeline-tests
swift_hash_path_prefix = pipeline
CONF
for entry in object:6200 container:6201 account:6202; do
    kind="${entry%%:*}" kind_port="${entry##*:}"
    cat > "$kind-server.conf" <<CONF
[DEFAULT]
devices = $state/devices
mount_check = false
bind_ip = 127.0.0.1
bind_port = $kind_port
workers = 0
swift_dir = $state
log_level = WARNING

# A loaded 2-core machine (the test suite's lanes, a build beside them) can leave a request's
# body unread for many seconds: the defaults (60 s for a client, 3 s for a node) turned such a
# pause into 400 RequestTimeout and 503s that the tests then saw as failures of the client.
client_timeout = 300
node_timeout = 120
conn_timeout = 10

[pipeline:main]
pipeline = $kind-server

[app:$kind-server]
use = egg:swift#$kind
CONF
done
cat > proxy-server.conf <<CONF
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $port
workers = 0
swift_dir = $state
log_level = WARNING

[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true
# As for the storage servers above: a loaded machine's pauses are not the client's failures.
client_timeout = 300
node_timeout = 120
recoverable_node_timeout = 120
conn_timeout = 10

[filter:s3api]
use = egg:swift#s3api
location = us-east-1

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = testing .admin
user_test_pr = pr-testing .admin

[filter:catch_errors]
use = egg:swift#catch_errors
[filter:gatekeeper]
use = egg:swift#gatekeeper
[filter:healthcheck]
use = egg:swift#healthcheck
[filter:proxy-logging]
use = egg:swift#proxy_logging
[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:11211
[filter:listing_formats]
use = egg:swift#listing_formats
[filter:copy]
use = egg:swift#copy
[filter:slo]
use = egg:swift#slo
[filter:dlo]
use = egg:swift#dlo
CONF

# Swift reads /etc/swift/swift.conf unless told otherwise.
export SWIFT_CONF_FILE="$state/swift.conf"
pids=()
memcached -l 127.0.0.1 -p 11211 -u "$(id -un)" > "$state/run/memcached.log" 2>&1 &
pids+=($!)
for server in object container account proxy; do
    "swift-$server-server" "$state/$server-server.conf" > "$state/run/$server.log" 2>&1 &
    pids+=($!)
done
printf '%s\n' "${pids[@]}" > "$state/pids"

# Ready when the storage ports and memcached accept AND the health check answers (early requests get 503).
ready() {
    for p in 6200 6201 6202 11211 "$port"; do (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || return 1; done
    curl -fsS "http://127.0.0.1:$port/healthcheck" >/dev/null 2>&1
}
for _ in $(seq 100); do ready && break; sleep 0.2; done
ready || { echo "s3-server: did not start; logs in $state/run" >&2; tail -5 "$state"/run/*.log >&2; exit 1; }
# Early requests still fail (503, or 500 while the account is auto-created): ready only once a
# container can really be created, through Swift's own API with the same tempauth user.
writable() {
    local token
    token="$(curl -fsS -D - -o /dev/null -H 'X-Auth-User: test:tester' -H 'X-Auth-Key: testing' \
        "http://127.0.0.1:$port/auth/v1.0" 2>/dev/null | tr -d '\r' | sed -n 's/^[Xx]-[Aa]uth-[Tt]oken: //p')"
    [[ -n "$token" ]] || return 1
    curl -fsS -o /dev/null -X PUT -H "X-Auth-Token: $token" "http://127.0.0.1:$port/v1/AUTH_test/readiness" 2>/dev/null \
        && curl -fsS -o /dev/null -X DELETE -H "X-Auth-Token: $token" "http://127.0.0.1:$port/v1/AUTH_test/readiness" 2>/dev/null
}
for _ in $(seq 150); do writable && break; sleep 0.2; done
writable || { echo "s3-server: started but cannot store anything; logs in $state/run" >&2; exit 1; }
echo "http://127.0.0.1:$port"
