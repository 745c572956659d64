#!/bin/sh
# Write an OCI image archive (image-spec layout, one uncompressed layer) of
# a root file system tarball, for `ctr image import`: no registry, no
# docker. Usage: oci-image.sh ROOTFS.tar OUT.tar NAME (e.g. secbpf/bb:1).
set -eu
[ $# -eq 3 ] || { echo "usage: oci-image.sh ROOTFS.tar OUT.tar NAME" >&2; exit 2; }
rootfs=$1 out=$2 name=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/blobs/sha256"

# Store stdin as a blob; print its digest and size.
blob() {
	cat >"$work/blob.tmp"
	d=$(sha256sum "$work/blob.tmp" | cut -d' ' -f1)
	mv "$work/blob.tmp" "$work/blobs/sha256/$d"
	echo "$d $(wc -c <"$work/blobs/sha256/$d")"
}

set -- $(blob <"$rootfs")
layer=$1 layer_size=$2
set -- $(printf '{"architecture":"amd64","os":"linux","config":{"Env":["PATH=/bin"]},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
	"$layer" | blob)
config=$1 config_size=$2
set -- $(printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%s}]}' \
	"$config" "$config_size" "$layer" "$layer_size" | blob)
printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"%s"}}]}' \
	"$1" "$2" "$name" "${name##*:}" >"$work/index.json"
echo '{"imageLayoutVersion":"1.0.0"}' >"$work/oci-layout"
tar -C "$work" -cf "$out" oci-layout index.json blobs
