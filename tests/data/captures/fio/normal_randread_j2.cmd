# fio normal output, randread 4k qd16, numjobs=2 (no group_reporting)
# captured: 2026-11-24T18:01:12Z (UTC), local files on ext4 (/var/tmp, /dev/vda), O_DIRECT works there
# exit status: 0
# tool: fio-3.33 (/usr/bin/fio, Debian 12 package)
# command (stdout+stderr combined into normal_randread_j2.out; the directory was made before and removed after):
timeout 30 fio --directory=/var/tmp/pbfio/normal_randread_j2 --size=64m --runtime=3 --time_based --direct=1 --ioengine=libaio --bs=4k --iodepth=16 --name=randread --rw=randread --numjobs=2 --output-format=normal > tests/data/captures/fio/normal_randread_j2.out 2>&1
