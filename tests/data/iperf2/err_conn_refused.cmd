# iperf2 error: connection refused
# captured: 2026-11-22T00:35:17Z on vm (6.18.44-fc-v657), iperf version 2.1.8 (12 August 2022) pthreads, Debian package iperf 2.1.8+dfsg-1, exit status: 0
# stdout+stderr combined into err_conn_refused.out
# note: loopback only; server: "iperf -s -p 5999" (one long-lived server, see server_session.out); nothing listens on port 5998; iperf 2.1.8 exits 0 all the same
iperf -c 127.0.0.1 -p 5998 -t 2 -i 1
