# uperf a profile of the user's (two groups: bulk writes and request/response); master options: -a
# captured: 2026-11-28T02:22:40Z (UTC) on the dev machine, loopback 127.0.0.1; exit status: 0
# tool version: Uperf Version 1.0.8 (uperf -V)
# stdout+stderr combined into profile_groups_t2_a.out; stdout is a file, so uperf's progress width is 80 columns
# note: the slave ran from the same directory and was stopped (SIGTERM) after the master ended;
#       the profile is written by the first command below (the project's own, not one of uperf's workloads)
# pairbench params: nthr=2 dur=2s
cat > groups.xml <<'EOF'
<?xml version="1.0"?>
<!-- two groups at once: bulk writes, and small request/response exchanges -->
<profile name="two-groups">
  <group nthreads="$nthr">
    <transaction iterations="1">
      <flowop type="connect" options="remotehost=$h protocol=tcp wndsz=256k"/>
    </transaction>
    <transaction duration="$dur">
      <flowop type="write" options="size=64k"/>
    </transaction>
    <transaction iterations="1">
      <flowop type="disconnect"/>
    </transaction>
  </group>
  <group nthreads="1">
    <transaction iterations="1">
      <flowop type="connect" options="remotehost=$h protocol=tcp tcp_nodelay"/>
    </transaction>
    <transaction duration="$dur">
      <flowop type="write" options="size=100"/>
      <flowop type="read" options="size=100"/>
    </transaction>
    <transaction iterations="1">
      <flowop type="disconnect"/>
    </transaction>
  </group>
</profile>
EOF
timeout 60 /root/.cache/pairbench/tools/uperf-e49ca9c87cfed9b7/bin/uperf -s -P 42691 >/dev/null 2>&1 &
env h=127.0.0.1 nthr=2 dur=2s timeout 30 /root/.cache/pairbench/tools/uperf-e49ca9c87cfed9b7/bin/uperf -m groups.xml -a -P 42691 >profile_groups_t2_a.out 2>&1
kill %1
