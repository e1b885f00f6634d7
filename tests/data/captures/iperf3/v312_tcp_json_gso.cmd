# iperf3 3.12 TCP, -J --get-server-output (server_output_json member) (client output)
# note (added after recording): the document holds a server_output_text member, not server_output_json: the server ran without -J (see v321_tcp_json_gso_server_json for the JSON member)
# captured: 2026-11-24T17:34:50Z (UTC), on loopback 127.0.0.1
# exit status: client 0, server 0
# tool: iperf 3.12 (cJSON 1.7.15) (/usr/bin/iperf3)
# commands (server first, in the background; the client 0.7 s later):
timeout 20 /usr/bin/iperf3 -s -1 -p 39573 > /tmp/iperfcap/v312_tcp_json_gso.server.txt 2>&1 &
timeout 20 /usr/bin/iperf3 -c 127.0.0.1 -p 39573 -t 3 -J --get-server-output > tests/data/captures/iperf3/v312_tcp_json_gso.out 2>&1
