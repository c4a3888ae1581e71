import os, sys, time
d, n, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
os.makedirs(d, exist_ok=True)
buf = os.urandom(4096)
t = time.time()
for i in range(n):
    with open(os.path.join(d, f"f{i}"), mode) as f:
        f.write(buf)
c = time.time() - t
t = time.time()
for i in range(n):
    with open(os.path.join(d, f"f{i}"), "rb") as f:
        assert f.read() == buf
r = time.time() - t
t = time.time()
for i in range(n):
    os.unlink(os.path.join(d, f"f{i}"))
u = time.time() - t
print(f"{n/c:.0f} {n/r:.0f} {n/u:.0f}")
