# uperf a profile of the user's (connect and disconnect, iterations=$iter); master options: -R -i 1s -a
# captured: 2026-11-28T02:22:31Z (UTC) on the dev machine, loopback 127.0.0.1; exit status: 0
# tool version: Uperf Version 1.0.8 (uperf -V)
# stdout+stderr combined into profile_connect_t2_R_i1s_a.out; stdout is a file, so uperf's progress width is 80 columns
# note: the slave ran from the same directory and was stopped (SIGTERM) after the master ended;
#       the profile is written by the first command below (the project's own, not one of uperf's workloads)
# pairbench params: nthr=2 iter=1500
cat > connect.xml <<'EOF'
<?xml version="1.0"?>
<!-- connections opened and closed, a given number of times per thread -->
<profile name="connect-close">
  <group nthreads="$nthr">
    <transaction iterations="$iter">
      <flowop type="connect" options="remotehost=$h protocol=tcp"/>
      <flowop type="disconnect"/>
    </transaction>
  </group>
</profile>
EOF
timeout 60 /root/.cache/pairbench/tools/uperf-e49ca9c87cfed9b7/bin/uperf -s -P 39753 >/dev/null 2>&1 &
env h=127.0.0.1 nthr=2 iter=1500 timeout 30 /root/.cache/pairbench/tools/uperf-e49ca9c87cfed9b7/bin/uperf -m connect.xml -R -i 1s -a -P 39753 >profile_connect_t2_R_i1s_a.out 2>&1
kill %1
