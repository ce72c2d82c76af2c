"""Containerized tasks (the Pyxis options, doc/containers.md): images from a
root file system tarball, an OCI image layout and a mirrored registry
reference, imported once per node; tasks run in them as the job's user with
the job's SLURM_* variables, mounts, a work directory, named containers kept
across a job's steps, and clear failures for bad images.

The images are made here from busybox-static: /bin/busybox and its applets,
and an /etc/os-release of the test's own.
"""

import gzip
import hashlib
import io
import json
import os
import pathlib
import re
import secrets
import shutil
import subprocess
import tarfile
import tempfile

import pytest

import conftest
from unixusers import as_user, needs_root, sbatch_as

BUSYBOX = shutil.which("busybox")
# the option checks need neither; everything else runs jobs as a test user
pytestmark = pytest.mark.skipif(not BUSYBOX, reason="needs busybox-static")

OS_RELEASE = 'ID=rotatest\nNAME="Rota Test Image"\nVERSION_ID="{tag}"\n'


def make_rootfs(path, tag="1"):
    """A busybox root file system at path."""
    path = pathlib.Path(path)
    (path / "bin").mkdir(parents=True)
    (path / "etc").mkdir()
    (path / "tmp").mkdir()
    os.chmod(path / "tmp", 0o1777)
    shutil.copy(BUSYBOX, path / "bin" / "busybox")
    applets = subprocess.run([BUSYBOX, "--list"], capture_output=True,
                             text=True).stdout.split()
    for a in applets:
        if a != "busybox":
            os.symlink("busybox", path / "bin" / a)
    (path / "etc" / "os-release").write_text(OS_RELEASE.format(tag=tag))
    (path / "etc" / "passwd").write_text("root:x:0:0:root:/root:/bin/sh\n")
    (path / "etc" / "group").write_text("root:x:0:\n")
    return path


def tar_bytes(root, gz=True, extra=()):
    """The tree at root (and extra (name, bytes) members) as a tar stream."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz" if gz else "w") as t:
        t.add(str(root), arcname=".")
        for name, data in extra:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def add_blob(layout, data):
    digest = hashlib.sha256(data).hexdigest()
    (layout / "blobs" / "sha256").mkdir(parents=True, exist_ok=True)
    (layout / "blobs" / "sha256" / digest).write_bytes(data)
    return "sha256:" + digest, len(data)


def make_oci_layout(layout, base_root, tag, multi_arch=False):
    """An OCI image layout of two layers: the base, then one that replaces
    /etc/os-release and whites out /etc/gone-file; Env in its config.  With
    multi_arch, behind an image index whose other platform's manifest is
    missing (picking it fails the test)."""
    layout = pathlib.Path(layout)
    layout.mkdir(parents=True)
    (layout / "oci-layout").write_text('{"imageLayoutVersion": "1.0.0"}')
    (base_root / "etc" / "gone-file").write_text("lower layer\n")
    l1 = add_blob(layout, tar_bytes(base_root))
    top = pathlib.Path(tempfile.mkdtemp())
    (top / "etc").mkdir()
    (top / "etc" / "os-release").write_text(OS_RELEASE.format(tag="layered"))
    (top / "etc" / ".wh.gone-file").write_text("")
    l2 = add_blob(layout, tar_bytes(top, gz=False))
    shutil.rmtree(top)
    cfg = add_blob(layout, json.dumps({
        "architecture": "amd64", "os": "linux",
        "config": {"Env": ["PATH=/bin", "IMG_VAR=from_image", "KEEP_ME=image"],
                   "WorkingDir": "/etc"},
        "rootfs": {"type": "layers", "diff_ids": []}}).encode())
    manifest = add_blob(layout, json.dumps({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
                   "digest": cfg[0], "size": cfg[1]},
        "layers": [
            {"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
             "digest": l1[0], "size": l1[1]},
            {"mediaType": "application/vnd.oci.image.layer.v1.tar",
             "digest": l2[0], "size": l2[1]}]}).encode())
    media = "application/vnd.oci.image.manifest.v1+json"
    if multi_arch:
        arch = {"x86_64": "amd64", "aarch64": "arm64"}.get(os.uname().machine,
                                                          os.uname().machine)
        missing = "sha256:" + hashlib.sha256(b"not here").hexdigest()
        manifest = add_blob(layout, json.dumps({
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.index.v1+json",
            "manifests": [
                {"mediaType": media, "digest": missing, "size": 8,
                 "platform": {"architecture": "s390x", "os": "linux"}},
                {"mediaType": media, "digest": manifest[0], "size": manifest[1],
                 "platform": {"architecture": arch, "os": "linux"}}]}).encode())
        media = "application/vnd.oci.image.index.v1+json"
    (layout / "index.json").write_text(json.dumps({
        "schemaVersion": 2,
        "manifests": [{"mediaType": media,
                       "digest": manifest[0], "size": manifest[1],
                       "annotations": {
                           "org.opencontainers.image.ref.name": tag}}]}))
    return layout


class Images:
    def __init__(self, top):
        self.top = pathlib.Path(top)
        root = make_rootfs(self.top / "rootfs")
        self.tarball = self.top / "busybox.tar.gz"
        self.tarball.write_bytes(tar_bytes(root))
        self.layout = make_oci_layout(self.top / "layout", root, "latest")
        self.mirror = self.top / "mirror"
        make_oci_layout(self.mirror / "example.org" / "tools" / "busybox", root, "2.0",
                        multi_arch=True)
        for dirpath, dirnames, filenames in os.walk(self.top):
            for n in dirnames + filenames:
                p = os.path.join(dirpath, n)
                if not os.path.islink(p):
                    os.chmod(p, 0o755 if os.path.isdir(p) else 0o644)
        os.chmod(self.top, 0o755)

    def fresh_tarball(self):
        """A tarball no job has used: its own content, so its own digest."""
        root = self.top / ("r-" + secrets.token_hex(4))
        make_rootfs(root, tag=root.name)
        path = self.top / (root.name + ".tar")
        path.write_bytes(tar_bytes(root, gz=False))
        os.chmod(path, 0o644)
        return path


@pytest.fixture(scope="module")
def images():
    d = tempfile.mkdtemp(prefix="rota-images-")
    os.chmod(d, 0o755)
    yield Images(d)
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="module")
def module_cluster(images):
    """The module's cluster knows the images' mirror (ContainerImageMirror)."""
    def add_mirror(path):
        with open(path, "a") as f:
            f.write(f"ContainerImageMirror={images.mirror}\n")
    yield from conftest.module_cluster_with(add_mirror)


@pytest.fixture(scope="module")
def users():
    from unixusers import make_users, remove_users
    made, group = make_users("a")
    yield made
    remove_users(made, group)


def node_log(cluster, node="node01"):
    return pathlib.Path(cluster.dir, "log", f"rotad-{node}.log").read_text()


def spool(cluster, node="node01"):
    return pathlib.Path(cluster.conf_value("SlurmdSpoolDir").replace("%n", node))


@needs_root
def test_task_sees_image_job_env_mount_and_user(ucluster, users, images):
    u = users["a"]
    work = ucluster.work
    p = as_user(ucluster, u,
                f"srun -N1 -w node01 --container-image={images.tarball} "
                f"--container-mounts={work}:/work --container-workdir=/work "
                "sh -c 'cat /etc/os-release; echo uid=$(id -u) user=$(id -un); "
                "echo job=$SLURM_JOB_ID step=$SLURM_STEP_ID procid=$SLURM_PROCID; "
                "echo pwd=$(pwd); echo written > /work/from-container'",
                timeout=120)
    assert p.returncode == 0, p.stderr + ucluster.logs()
    assert 'NAME="Rota Test Image"' in p.stdout
    assert f"uid={u.uid} user={u.name}" in p.stdout
    m = re.search(r"job=(\d+) step=0 procid=0", p.stdout)
    assert m, p.stdout
    assert "pwd=/work" in p.stdout
    out = work / "from-container"
    assert out.read_text() == "written\n"
    assert out.stat().st_uid == u.uid


@needs_root
def test_batch_script_runs_in_container(ucluster, users, images):
    u = users["a"]
    script = ucluster.work / "job.sh"
    shutil.copy(images.tarball, ucluster.work / "img.tar.gz")  # relative path
    script.write_text("#!/bin/sh\n"
                      "#SBATCH --container-image=img.tar.gz\n"
                      f"#SBATCH --container-mounts={ucluster.work}:/data\n"
                      "cat /etc/os-release\n"
                      "echo job=$SLURM_JOB_ID uid=$(id -u)\n"
                      "echo batch > /data/from-batch\n")
    script.chmod(0o755)
    jobid = sbatch_as(ucluster, u, "-N1 -o out.txt job.sh")
    assert ucluster.wait_job(jobid, timeout=60) == "COMPLETED", ucluster.logs()
    out = (ucluster.work / "out.txt").read_text()
    assert "Rota Test Image" in out
    assert f"job={jobid} uid={u.uid}" in out
    assert (ucluster.work / "from-batch").read_text() == "batch\n"


@needs_root
def test_named_container_kept_across_steps(ucluster, users, images):
    u = users["a"]
    img = images.tarball
    script = ucluster.work / "steps.sh"
    script.write_text(
        "#!/bin/sh\n"
        f"srun --container-image={img} --container-name=keep "
        "sh -c 'echo step0 > /tmp/left-behind'\n"
        f"srun --container-image={img} --container-name=keep cat /tmp/left-behind\n"
        f"srun --container-image={img} sh -c 'cat /tmp/left-behind || echo absent'\n")
    script.chmod(0o755)
    jobid = sbatch_as(ucluster, u, "-N1 -w node01 -o steps.out steps.sh")
    assert ucluster.wait_job(jobid, timeout=90) == "COMPLETED", ucluster.logs()
    out = (ucluster.work / "steps.out").read_text()
    assert out.splitlines()[0] == "step0", out
    assert "absent" in out, out
    # the cache's copy is untouched, and the job's containers are gone with it
    cache = spool(ucluster) / "images"
    assert not list(cache.glob("*/rootfs/tmp/left-behind"))
    jobdir = spool(ucluster) / "containers" / f"job{jobid:05d}"
    ucluster.wait_for(lambda: not jobdir.exists(), 15, f"{jobdir} removed")


@needs_root
def test_oci_layout_layers_whiteouts_and_env(ucluster, users, images):
    u = users["a"]
    p = as_user(ucluster, u,
                f"KEEP_ME=host srun -N1 --container-image={images.layout} "
                "--container-env=KEEP_ME --no-container-mount-home "
                "sh -c 'cat /etc/os-release; ls /etc; echo img=$IMG_VAR keep=$KEEP_ME; "
                "echo pwd=$(pwd); test -d $HOME && echo home || echo nohome'",
                timeout=120)
    assert p.returncode == 0, p.stderr + ucluster.logs()
    assert 'VERSION_ID="layered"' in p.stdout
    assert "gone-file" not in p.stdout
    assert "img=from_image keep=host" in p.stdout
    assert "pwd=/etc" in p.stdout  # the image's WorkingDir
    assert "nohome" in p.stdout


@needs_root
def test_reference_through_mirror(ucluster, users, images):
    u = users["a"]
    p = as_user(ucluster, u,
                "srun -N1 --container-image=example.org#tools/busybox:2.0 "
                "cat /etc/os-release", timeout=120)
    assert p.returncode == 0, p.stderr + ucluster.logs()
    assert 'VERSION_ID="layered"' in p.stdout
    p = as_user(ucluster, u,
                "srun -N1 --container-image=example.org#tools/busybox:9.9 true")
    assert p.returncode != 0
    assert "no manifest tagged `9.9'" in p.stderr


@needs_root
def test_remap_root(ucluster, users, images):
    u = users["a"]
    work = ucluster.work
    p = as_user(ucluster, u,
                f"srun -N1 --container-image={images.tarball} --container-remap-root "
                f"--container-mounts={work}:/w "
                "sh -c 'id -u; touch /w/by-root; touch /etc/hostile 2>/dev/null "
                "&& echo wrote-etc; true'", timeout=120)
    assert p.returncode == 0, p.stderr + ucluster.logs()
    assert p.stdout.splitlines()[0] == "0"
    # root inside is the user outside
    assert (work / "by-root").stat().st_uid == u.uid
    assert "wrote-etc" not in p.stdout


@needs_root
def test_bad_images_fail_clearly(ucluster, users, images):
    u = users["a"]
    missing = images.top / "missing.tar"
    p = as_user(ucluster, u, f"srun -N1 --container-image={missing} true",
                timeout=60)
    assert p.returncode != 0
    assert f"cannot open image {missing}: No such file or directory" in p.stderr

    garbage = images.top / "garbage.tar"
    garbage.write_bytes(os.urandom(4096))
    garbage.chmod(0o644)
    p = as_user(ucluster, u, f"srun -N1 --container-image={garbage} true",
                timeout=60)
    assert p.returncode != 0
    assert "not a tar archive" in p.stderr

    private = images.top / "private.tar"
    shutil.copy(images.tarball, private)
    private.chmod(0o600)  # root's: the user may not use it
    p = as_user(ucluster, u, f"srun -N1 --container-image={private} true",
                timeout=60)
    assert p.returncode != 0
    assert "Permission denied" in p.stderr

    p = as_user(ucluster, u, "srun -N1 --container-image=nosuch/image true")
    assert p.returncode != 0
    assert "is not in this node's mirror" in p.stderr

    jobid = sbatch_as(ucluster, u,
                      f"-N1 -o bad.out --container-image={missing} --wrap=true")
    assert ucluster.wait_job(jobid, timeout=30) == "FAILED"
    assert "cannot open image" in (ucluster.work / "bad.out").read_text()


@needs_root
def test_image_cache_filled_once(ucluster, users, images):
    u = users["a"]
    img = images.fresh_tarball()
    ids = [sbatch_as(ucluster, u, f"-N1 -w node02 -o c{i}.out "
                     f"--container-image={img} --wrap='cat /etc/os-release'")
           for i in range(2)]
    for j in ids:
        assert ucluster.wait_job(j, timeout=90) == "COMPLETED", ucluster.logs()
    for i in range(2):
        assert img.name[:-4] in (ucluster.work / f"c{i}.out").read_text()
    digest = hashlib.sha256(img.read_bytes()).hexdigest()
    assert (spool(ucluster, "node02") / "images" / f"sha256-{digest}" / "rootfs").is_dir()
    log = node_log(ucluster, "node02")
    assert log.count(f"imported image {img} ") == 1, log
    assert not list((spool(ucluster, "node02") / "images").glob(".import-*"))


@pytest.mark.parametrize("opt,msg", [
    ("--container-name=a/b", "--container-name: `a/b'"),
    ("--container-mounts=relative:/x", "`relative' is not an absolute path"),
    ("--container-mounts=/a:/b:rx", "unknown flag `rx'"),
    ("--container-mounts=/a:/../etc", "`..' in"),
    ("--container-mounts=" + ",".join(f"/m{i}" for i in range(65)), "more than 64 mounts"),
    ("--container-workdir=work", "`work' is not an absolute path"),
    ("--container-env=1BAD", "invalid variable name `1BAD'"),
    ("--container-image=" + "x" * 1025, "longer than 1024 characters"),
])
def test_option_errors(cluster, opt, msg):
    for cmd in ("srun -N1 true", "sbatch --wrap=true", "salloc true"):
        prog, rest = cmd.split(" ", 1)
        p = cluster.run(f"{prog} {opt} {rest}")
        assert p.returncode != 0, (cmd, p.stdout)
        assert f"{prog}: error: " in p.stderr and msg in p.stderr, (cmd, p.stderr)


@needs_root
def test_salloc_image_is_its_steps_default(ucluster, users, images):
    u = users["a"]
    p = as_user(ucluster, u,
                f"salloc -N1 --container-image={images.tarball} "
                "srun sh -c 'grep NAME= /etc/os-release; id -u'", timeout=120)
    assert p.returncode == 0, p.stderr + ucluster.logs()
    assert 'NAME="Rota Test Image"' in p.stdout
    assert str(u.uid) in p.stdout.split()


@needs_root
def test_pty_in_container(ucluster, users, images):
    u = users["a"]
    p = as_user(ucluster, u,
                f"srun --pty --container-image={images.tarball} sh -c "
                "'tty; [ -t 0 ] && [ -t 1 ] && echo all-tty; grep ^ID= /etc/os-release'",
                timeout=60)
    assert p.returncode == 0, p.stderr + ucluster.logs()
    lines = [line.rstrip("\r") for line in p.stdout.splitlines()]
    assert re.fullmatch(r"/dev/pts/\d+", lines[0]), p.stdout
    assert lines[1:] == ["all-tty", "ID=rotatest"], p.stdout


@needs_root
def test_slurm_container_bundle(ucluster, users, images):
    """Slurm's --container=PATH: an OCI bundle's root, process.env (the job's
    values win) and process.cwd; the bundle itself is not written to."""
    u = users["a"]
    bundle = images.top / ("bundle-" + secrets.token_hex(3))
    shutil.copytree(images.top / "rootfs", bundle / "rootfs", symlinks=True)
    (bundle / "rootfs" / "etc" / "os-release").write_text("ID=bundle\n")
    (bundle / "config.json").write_text(json.dumps({
        "ociVersion": "1.0.0", "root": {"path": "rootfs"},
        "process": {"cwd": "/tmp", "args": ["sh"],
                    "env": ["PATH=/bin", "BUNDLE_VAR=yes", "SLURM_JOB_ID=bogus"]}}))
    for dirpath, dirnames, filenames in os.walk(bundle):
        os.chmod(dirpath, 0o755)
    os.chmod(bundle / "rootfs" / "bin" / "busybox", 0o755)
    passwd = (bundle / "rootfs" / "etc" / "passwd").read_text()
    p = as_user(ucluster, u,
                f"srun -N1 --container={bundle} sh -c 'cat /etc/os-release; pwd; "
                "echo var=$BUNDLE_VAR job=$SLURM_JOB_ID uid=$(id -u)'", timeout=60)
    assert p.returncode == 0, p.stderr + ucluster.logs()
    assert p.stdout.splitlines()[:2] == ["ID=bundle", "/tmp"], p.stdout
    m = re.search(r"var=yes job=(\d+) uid=(\d+)", p.stdout)
    assert m and m.group(2) == str(u.uid), p.stdout
    assert (bundle / "rootfs" / "etc" / "passwd").read_text() == passwd

    p = as_user(ucluster, u, f"srun -N1 --container={bundle}/nothing true")
    assert p.returncode != 0
    assert "--container: cannot open" in p.stderr and "config.json" in p.stderr
    p = as_user(ucluster, u,
                f"srun -N1 --container={bundle} --container-image={images.tarball} true")
    assert p.returncode != 0
    assert "exclude each other" in p.stderr
