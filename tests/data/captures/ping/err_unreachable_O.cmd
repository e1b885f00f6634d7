# ping -O of an on-link address nobody has: no answer yet, then Destination Host Unreachable, no reply
# captured: 2026-11-24T17:37:35Z (UTC) on the dev machine, loopback only
# exit status: 1
# tool version: ping from iputils 20221126 (ping -V; libcap: yes, IDN: yes, NLS: no)
# output: stdout+stderr combined (> err_unreachable_O.out 2>&1), stdout a file, not a TTY
# setup (a private pair of namespaces, deleted after; no traffic leaves them):
#   ip netns add pbh1; ip netns add pbh2
#   ip link add pbhv1 netns pbh1 type veth peer name pbhv2 netns pbh2
#   ip -n pbh1 addr add 10.253.77.1/30 dev pbhv1; ip -n pbh2 addr add 10.253.77.2/30 dev pbhv2
#   ip -n pbh1 link set lo up; ip -n pbh2 link set lo up; ip -n pbh1 link set pbhv1 up; ip -n pbh2 link set pbhv2 up
#   ip -n pbh1 addr add 10.253.78.1/24 dev pbhv1   (10.253.78.9: on the link, but nobody has it)
ip netns exec pbh1 timeout 20 ping -O -c 8 -i 0.5 10.253.78.9 > err_unreachable_O.out 2>&1
