# uperf no statistics (-n) with -R: streaming profile (pairbench throughput_profile: write count=10 size=8k per iteration), TCP, nthreads=1, 2s; master options: -n -R
# captured: 2026-11-24T17:34:45Z (UTC) on the dev machine, loopback 127.0.0.1; exit status: 0
# tool version: Uperf Version 1.0.8 (uperf -V)
# stdout+stderr combined into stream_tcp_t1_n_R.out; stdout is a file, so uperf's progress width is 80 columns
# note: the slave ran from the same directory and was stopped (SIGTERM) after the master ended;
#       the profile is pairbench.tools.uperf_profiles' XML, written by the first command below
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
timeout 60 /root/.cache/pairbench/tools/uperf-e49ca9c87cfed9b7/bin/uperf -s -P 55597 >/dev/null 2>&1 &
env h=127.0.0.1 proto=tcp nthr=1 dur=2s size=8k wndsz=500k count=10 timeout 30 /root/.cache/pairbench/tools/uperf-e49ca9c87cfed9b7/bin/uperf -m profile.xml -n -R -P 55597 >stream_tcp_t1_n_R.out 2>&1
kill %1
