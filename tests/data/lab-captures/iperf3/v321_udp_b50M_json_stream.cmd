# iperf3 3.21 --json-stream client: UDP -b 50M, client -> server, 4 s
# captured: 2026-11-24T18:49:54Z (UTC) on the Pairbench network lab (pairbench lab up: namespaces pbl-client / pbl-server, data link 10.213.0.1 -> 10.213.0.2)
# exit status: client 0, server 0
# tool version: iperf 3.21 (cJSON 1.7.15) (/root/.cache/pairbench/tools/iperf3-16d415ead246b6bc/bin/iperf3)
# lab shaping in force: rate 200mbit, delay 5ms each way (pairbench lab shape --rate 200mbit --delay 5ms; ping RTT ~10.3 ms)
# server ran in namespace pbl-server, client in namespace pbl-client; the client's stdout+stderr combined into v321_udp_b50M_json_stream.out
# note: the commands are Pairbench's own (app/pairbench/tools/iperf3.py) for iperf3 >= 3.17, with the lab's data address
ip netns exec pbl-server timeout 60 /root/.cache/pairbench/tools/iperf3-16d415ead246b6bc/bin/iperf3 -s -1 -p 15205 --forceflush > /dev/null 2>&1 &
ip netns exec pbl-client timeout 60 /root/.cache/pairbench/tools/iperf3-16d415ead246b6bc/bin/iperf3 -c 10.213.0.2 -p 15205 -t 4 -i 1 --json-stream -u -b 50M > v321_udp_b50M_json_stream.out 2>&1
