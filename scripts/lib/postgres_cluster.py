"""A throwaway PostgreSQL server for the benchmarks: initdb in a temp folder, pg_ctl on a free
loopback port, as `nobody` when run as root (initdb refuses root), password authentication."""

import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile


class Cluster:
    """initdb + pg_ctl in a temp folder; as nobody when root (initdb refuses root)."""

    def __init__(self):
        versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
        if not versions:
            sys.exit("benchmark: no /usr/lib/postgresql/*/bin (scripts/setup installs postgresql)")
        self.bin = os.path.dirname(versions[-1])
        self.folder = tempfile.mkdtemp(prefix="bench-pg-", dir="/tmp")
        self.password = "bench-" + os.urandom(8).hex()
        self.user = "bench"
        pwfile = os.path.join(self.folder, "pwfile")
        with open(pwfile, "w") as f:
            f.write(self.password)
        self.as_root = os.geteuid() == 0
        if self.as_root:
            os.chown(self.folder, 65534, 65534)
            os.chown(pwfile, 65534, 65534)
        self.data = os.path.join(self.folder, "data")
        self.server(["initdb", "-D", self.data, "-U", self.user, f"--pwfile={pwfile}", "--auth-host=scram-sha-256",
                     "--auth-local=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"])
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.start()

    def server(self, args):
        command = [os.path.join(self.bin, args[0])] + args[1:]
        if self.as_root:
            command = ["runuser", "-u", "nobody", "--"] + command
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd="/tmp")

    def psql(self, sql, database="postgres"):
        subprocess.run([os.path.join(self.bin, "psql"), "-h", self.folder, "-p", str(self.port), "-U", self.user, "-d", database,
                        "-v", "ON_ERROR_STOP=1", "-q", "-c", sql], check=True, stdout=subprocess.DEVNULL)

    def stop(self):
        self.server(["pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop"])
        shutil.rmtree(self.folder, ignore_errors=True)

    def url(self, database):
        """The URL rapidscan is given (the password goes through PGPASSWORD)."""
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}?sslmode=disable"

    def start(self):
        self.server(["pg_ctl", "-D", self.data, "-l", os.path.join(self.folder, "log"), "-w", "-o",
                     f"-k {self.folder} -c listen_addresses=127.0.0.1 -p {self.port}", "start"])

    def crash(self):
        """Stops the server as a power cut would (`-m immediate`: no checkpoint, recovery on start)."""
        self.server(["pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop"])

    def query(self, sql, database):
        """One value of a query's single row."""
        return subprocess.run([os.path.join(self.bin, "psql"), "-h", self.folder, "-p", str(self.port), "-U", self.user,
                               "-d", database, "-At", "-c", sql], check=True, capture_output=True, text=True).stdout.strip()
