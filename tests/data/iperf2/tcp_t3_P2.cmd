# iperf2 TCP client 3 s, 2 parallel streams ([SUM] lines)
# captured: 2026-11-22T00:34:51Z on vm (6.18.44-fc-v657), iperf version 2.1.8 (12 August 2022) pthreads, Debian package iperf 2.1.8+dfsg-1, exit status: 0
# stdout+stderr combined into tcp_t3_P2.out
# note: loopback only; server: "iperf -s -p 5999" (one long-lived server, see server_session.out)
iperf -c 127.0.0.1 -p 5999 -t 3 -i 1 -P 2
