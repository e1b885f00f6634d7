# iperf2 server error: the port is taken (another "iperf -s -p 5996" was listening)
# captured: 2026-11-22T00:40:30Z on vm (6.18.44-fc-v657), iperf version 2.1.8 (12 August 2022) pthreads, Debian package iperf 2.1.8+dfsg-1, exit status: 0
# stdout+stderr combined into err_server_port_in_use.out
# note: loopback only; iperf 2.1.8 prints one line and exits 0 at once
iperf -s -p 5996
