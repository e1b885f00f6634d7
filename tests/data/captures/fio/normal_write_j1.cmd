# fio normal output, sequential write 4k, one job
# captured: 2026-11-24T18:01:24Z (UTC), local files on ext4 (/var/tmp, /dev/vda), O_DIRECT works there
# exit status: 0
# tool: fio-3.33 (/usr/bin/fio, Debian 12 package)
# command (stdout+stderr combined into normal_write_j1.out; the directory was made before and removed after):
timeout 30 fio --directory=/var/tmp/pbfio/normal_write_j1 --size=64m --runtime=3 --time_based --direct=1 --ioengine=libaio --bs=4k --iodepth=16 --name=seqwrite --rw=write --output-format=normal > tests/data/captures/fio/normal_write_j1.out 2>&1
