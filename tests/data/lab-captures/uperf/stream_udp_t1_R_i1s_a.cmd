# uperf Pairbench's live command (-R -i 1s -a, app/pairbench/tools/uperf.py): streaming profile (pairbench throughput_profile: write count=10 size=8k per iteration), UDP, nthreads=1, 4s; master options: -R -i 1s -a
# captured: 2026-11-24T18:51:33Z (UTC) on the Pairbench network lab (pairbench lab up: namespaces pbl-client / pbl-server, data link 10.213.0.1 -> 10.213.0.2)
# exit status: master (client) 0; slave (server) stopped with SIGTERM after the master ended (it never exits by itself)
# tool version: Uperf Version 1.0.8 (uperf -V) (/root/.cache/pairbench/tools/uperf-e49ca9c87cfed9b7/bin/uperf)
# lab shaping in force: rate 200mbit, delay 5ms each way (pairbench lab shape --rate 200mbit --delay 5ms; ping RTT ~10.3 ms)
# server ran in namespace pbl-server, client in namespace pbl-client; the client's stdout+stderr combined into stream_udp_t1_R_i1s_a.out
# note: the profile is pairbench.tools.uperf_profiles' XML (written by the first command below), its values in the environment as Pairbench passes them
# note: stdout is a file, so uperf's progress width is 80 columns
cat > profile.xml <<'EOF'
<?xml version="1.0"?>
<profile name="pairbench-throughput">
  <group nthreads="$nthr">
    <transaction iterations="1">
      <flowop type="connect" options="remotehost=$h protocol=$proto wndsz=$wndsz tcp_nodelay"/>
    </transaction>
    <transaction duration="$dur">
      <flowop type="write" options="count=$count size=$size"/>
    </transaction>
    <transaction iterations="1">
      <flowop type="disconnect"/>
    </transaction>
  </group>
</profile>
EOF
ip netns exec pbl-server timeout 60 /root/.cache/pairbench/tools/uperf-e49ca9c87cfed9b7/bin/uperf -s -P 15227 > /dev/null 2>&1 &
env h=10.213.0.2 proto=udp nthr=1 dur=4s size=8k wndsz=500k count=10 ip netns exec pbl-client timeout 60 /root/.cache/pairbench/tools/uperf-e49ca9c87cfed9b7/bin/uperf -m profile.xml -R -i 1s -a -P 15227 > stream_udp_t1_R_i1s_a.out 2>&1
kill %1
