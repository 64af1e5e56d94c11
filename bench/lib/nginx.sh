# Shared by bench/run.sh and bench/tls/run.sh: the nginx peer's configuration. One worker
# without a master process, so its CPU time is one process's; no access log; keep-alive
# without a request limit; GET /health answers {"status":"ok"} as application/json.
#
# write_nginx_conf DIR PORT [SERVER_LINES]: writes DIR/nginx.conf listening on
# 127.0.0.1:PORT; SERVER_LINES (e.g. the TLS directives, "ssl" added to the listen line
# when they are given) go into the server block.
write_nginx_conf() {
    local dir="$1" port="$2" extra="${3:-}" listen_flags=""
    [ -n "$extra" ] && listen_flags=" ssl"
    mkdir -p "$dir"
    cat >"$dir/nginx.conf" <<NGINX
daemon off;
master_process off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $dir;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:$port$listen_flags;
$extra
        location = /health { default_type application/json; return 200 '{"status":"ok"}'; }
    }
}
NGINX
}

# A free loopback port, for a server that cannot pick its own.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
