# fio json+ output, randrw 70%, numjobs=2, group_reporting
# captured: 2026-11-24T18:02:23Z (UTC), local files on ext4 (/var/tmp, /dev/vda), O_DIRECT works there
# exit status: 0
# tool: fio-3.33 (/usr/bin/fio, Debian 12 package)
# command (stdout+stderr combined into jsonplus_randrw70_j2_group.out; the directory was made before and removed after):
timeout 30 fio --directory=/var/tmp/pbfio/jsonplus_randrw70_j2_group --size=64m --runtime=3 --time_based --direct=1 --ioengine=libaio --bs=4k --iodepth=16 --name=randrw --rw=randrw --rwmixread=70 --numjobs=2 --group_reporting --output-format=json+ > tests/data/captures/fio/jsonplus_randrw70_j2_group.out 2>&1
