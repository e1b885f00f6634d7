# iperf2 error: unknown host
# captured: 2026-11-22T00:37:17Z on vm (6.18.44-fc-v657), iperf version 2.1.8 (12 August 2022) pthreads, Debian package iperf 2.1.8+dfsg-1, exit status: 1
# stdout+stderr combined into err_unknown_host.out
# note: loopback only; server: "iperf -s -p 5999" (one long-lived server, see server_session.out); the name does not resolve
iperf -c no-such-host.invalid -p 5999 -t 3 -i 1
