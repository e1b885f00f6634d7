# iperf2 TCP server: one long-lived server that served every client capture in this directory (and two runs not kept), then was stopped with SIGTERM
# captured: 2026-11-22T00:34:44Z..00:37:45Z on vm (6.18.44-fc-v657), iperf version 2.1.8 (12 August 2022) pthreads, Debian package iperf 2.1.8+dfsg-1, exit status: killed (SIGTERM)
# stdout+stderr combined into server_session.out
# note: loopback only; the server prints "Server listening on TCP port 5999" at once (also through a pipe: iperf2 flushes each line), then one whole-run line per stream and test (no interval lines: the server had no -i); the server does not exit after a test
iperf -s -p 5999
