# iperf3 3.12 UDP 50M, -f g (Gbits/sec) (client output)
# captured: 2026-11-24T17:34:23Z (UTC), on loopback 127.0.0.1
# exit status: client 0, server 0
# tool: iperf 3.12 (cJSON 1.7.15) (/usr/bin/iperf3)
# commands (server first, in the background; the client 0.7 s later):
timeout 20 /usr/bin/iperf3 -s -1 -p 38433 -f g > tests/data/captures/iperf3/v312_udp_fg_server.out 2>&1 &
timeout 20 /usr/bin/iperf3 -c 127.0.0.1 -p 38433 -t 3 -u -b 50M -f g > tests/data/captures/iperf3/v312_udp_fg.out 2>&1
