# iperf2 with an unknown option
# captured: 2026-11-22T00:37:17Z on vm (6.18.44-fc-v657), iperf version 2.1.8 (12 August 2022) pthreads, Debian package iperf 2.1.8+dfsg-1, exit status: 0
# stdout+stderr combined into warn_unrecognized_option.out
# note: loopback only; server: "iperf -s -p 5999" (one long-lived server, see server_session.out); iperf 2.1.8 warns about the unknown option and runs the test anyway, exit status 0
iperf -c 127.0.0.1 -p 5999 -t 3 -i 1 --bogus
