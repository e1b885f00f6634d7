# iperf2 TCP client 3 s, -w 256K -l 64K
# captured: 2026-11-22T00:35:20Z on vm (6.18.44-fc-v657), iperf version 2.1.8 (12 August 2022) pthreads, Debian package iperf 2.1.8+dfsg-1, exit status: 0
# stdout+stderr combined into tcp_t3_w256K_l64K.out
# note: loopback only; server: "iperf -s -p 5999" (one long-lived server, see server_session.out); the kernel doubles the window: 512 KByte (WARNING: requested 256 KByte)
iperf -c 127.0.0.1 -p 5999 -t 3 -i 1 -w 256K -l 64K
