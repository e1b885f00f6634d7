# iperf3 3.12 TCP, --logfile (the log file is the capture) (client output)
# captured: 2026-11-24T17:34:31Z (UTC), on loopback 127.0.0.1
# exit status: client 0, server 0
# tool: iperf 3.12 (cJSON 1.7.15) (/usr/bin/iperf3)
# note: the client's stdout and stderr (to /tmp) were empty
# commands (server first, in the background; the client 0.7 s later):
timeout 20 /usr/bin/iperf3 -s -1 -p 57169 > /tmp/iperfcap/v312_tcp_logfile.server.txt 2>&1 &
timeout 20 /usr/bin/iperf3 -c 127.0.0.1 -p 57169 -t 3 --logfile tests/data/captures/iperf3/v312_tcp_logfile.out > /tmp/iperfcap/v312_tcp_logfile.stdio 2>&1
