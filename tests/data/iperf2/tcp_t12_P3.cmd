# iperf2 TCP client 12 s, 3 parallel streams
# captured: 2026-11-22T00:35:15Z on vm (6.18.44-fc-v657), iperf version 2.1.8 (12 August 2022) pthreads, Debian package iperf 2.1.8+dfsg-1, exit status: 0
# stdout+stderr combined into tcp_t12_P3.out
# note: loopback only; server: "iperf -s -p 5999" (one long-lived server, see server_session.out); the per-stream whole-run lines interleave with the last interval lines; the last [SUM] interval is 11.0000-12.0037
iperf -c 127.0.0.1 -p 5999 -t 12 -i 1 -P 3
