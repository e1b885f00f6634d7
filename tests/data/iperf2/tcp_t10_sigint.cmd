# iperf2 TCP client 10 s, stopped by SIGINT
# captured: 2026-11-22T00:37:41Z on vm (6.18.44-fc-v657), iperf version 2.1.8 (12 August 2022) pthreads, Debian package iperf 2.1.8+dfsg-1, exit status: 0
# stdout+stderr combined into tcp_t10_sigint.out
# note: loopback only; server: "iperf -s -p 5999" (one long-lived server, see server_session.out); SIGINT after 2.6 s: iperf prints the partial interval 2.0000-2.6096 and the whole-run line, exit status 0
iperf -c 127.0.0.1 -p 5999 -t 10 -i 1   # SIGINT sent after 2.6 s
