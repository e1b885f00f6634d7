# iperf3 3.21 TCP, -J --get-server-output (server_output_json member) (client output)
# note (added after recording): the document holds a server_output_text member, not server_output_json: the server ran without -J (see v321_tcp_json_gso_server_json for the JSON member)
# captured: 2026-11-24T17:35:49Z (UTC), on loopback 127.0.0.1
# exit status: client 0, server 0
# tool: iperf 3.21 (cJSON 1.7.15) (/root/.cache/pairbench/tools/iperf3-16d415ead246b6bc/bin/iperf3)
# commands (server first, in the background; the client 0.7 s later):
timeout 20 /root/.cache/pairbench/tools/iperf3-16d415ead246b6bc/bin/iperf3 -s -1 -p 55877 > /tmp/iperfcap/v321_tcp_json_gso.server.txt 2>&1 &
timeout 20 /root/.cache/pairbench/tools/iperf3-16d415ead246b6bc/bin/iperf3 -c 127.0.0.1 -p 55877 -t 3 -J --get-server-output > tests/data/captures/iperf3/v321_tcp_json_gso.out 2>&1
