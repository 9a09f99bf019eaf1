# order.py DEFS: the ladder's order and steps against the definitions the
# commits changed (scripts/stepmiss -defs output). See stepmiss's doc.
import math, collections, sys
rows=collections.defaultdict(list)
for ln in open(sys.argv[1]):
    f=ln.split()
    if len(f)<6: continue
    if f[5]!='def': 
        rows[(f[0],f[1],f[2])].append(None); continue
    repo,commit,src,k,line,_,kind,score,glob,nl,nb,ch=f
    rows[(repo,commit,src)].append(dict(k=int(k),score=float(score),g=float(glob),lines=int(nl),bytes=int(nb),ch=int(ch),kind=kind))
groups=[]
for key,ds in rows.items():
    if any(d is None for d in ds): continue  # runs of long functions: skip file
    if not any(d['ch'] for d in ds): continue
    groups.append((key,ds))
print('files with a changed ladder def', len(groups), 'of', len(rows))
# conditional logit: P(def changed) ∝ exp(a log score + b log bytes)
def ll(a,b):
    t=0
    for _,ds in groups:
        xs=[a*math.log(d['score'])+b*math.log(d['bytes']) for d in ds]
        m=max(xs); z=m+math.log(sum(math.exp(x-m) for x in xs))
        for d,x in zip(ds,xs):
            if d['ch']: t+=x-z
    return t
best=None
for a in [x/4 for x in range(0,17)]:
    for b in [x/4 for x in range(-4,9)]:
        v=ll(a,b)
        if best is None or v>best[0]: best=(v,a,b)
print('best ll a b', best, 'll(a,0)', max((ll(a,0),a) for a in [x/4 for x in range(0,17)]))
def cost(ds, key, keepfirst):
    order=sorted(range(len(ds)), key=lambda i:(-key(ds[i]), i))
    if keepfirst:
        order=[0]+[i for i in order if i!=0]
    need={i for i,d in enumerate(ds) if d['ch']}
    c=0; got=set(); steps=0
    for i in order:
        c+=ds[i]['bytes']; got.add(i); steps+=1
        if need<=got: return c, steps
    return c, steps
STEPS=[1,2,3,5,8,13]
def report(name,key,keepfirst):
    cs=[cost(ds,key,keepfirst) for _,ds in groups]
    b=[c for c,_ in cs]
    b.sort()
    within=lambda B: sum(1 for x in b if x<=B)
    med=b[len(b)//2]
    # cost rounded up to the ladder's steps
    print(f"{name:28s} median {med:6d} mean {sum(b)/len(b):7.0f}  <=2k {within(2000):3d} <=4k {within(4000):3d} <=8k {within(8000):3d} <=16k {within(16000):3d}")
report('score (main)', lambda d:d['score'], False)
for p in [0.25,0.5,0.75,1.0]:
    report(f'score/bytes^{p}', lambda d,p=p:math.log(d['score'])-p*math.log(d['bytes']), False)
    report(f'score/bytes^{p} top first', lambda d,p=p:math.log(d['score'])-p*math.log(d['bytes']), True)
def stepcost(ds, steps):
    need={i for i,d in enumerate(ds) if d['ch']}
    last=max(need)+1  # defs needed in score order
    n=len(ds)
    k=next((s for s in steps if s>=last), n)
    k=min(k,n)
    return sum(d['bytes'] for d in ds[:k]), last
for steps in ([1,2,3,5,8,13],[1,2,3,4,5,6,8,10,13],list(range(1,14))):
    cs=[stepcost(ds,steps) for _,ds in groups]
    b=sorted(c for c,_ in cs)
    within=lambda B: sum(1 for x in b if x<=B)
    print(steps, f"mean {sum(b)/len(b):7.0f} <=1k {within(1000)} <=2k {within(2000):3d} <=4k {within(4000):3d} <=8k {within(8000):3d}")
import collections
print(collections.Counter(l for _,l in cs))
def tiesteps(ds, base, tol):
    out=[]
    for s in base:
        k=min(s,len(ds))
        while k<len(ds) and ds[k]['score']>=ds[k-1]['score']*(1-tol): k+=1
        if k not in out: out.append(k)
    return out
for tol in [0.005,0.02,0.05]:
    cs=[]; nviews=0
    for _,ds in groups:
        st=tiesteps(ds,[1,2,3,5,8,13],tol); nviews+=len(st)
        cs.append(stepcost(ds,st))
    b=sorted(c for c,_ in cs)
    within=lambda B: sum(1 for x in b if x<=B)
    print('ties',tol, f"mean {sum(b)/len(b):7.0f} <=1k {within(1000)} <=2k {within(2000):3d} <=4k {within(4000):3d} <=8k {within(8000):3d} views {nviews}")
    cs=[]; nviews=0
    for _,ds in groups:
        st=sorted(set([1,2,3,5,8,13]+tiesteps(ds,[1,2,3,5,8,13],tol))); nviews+=len(st)
        cs.append(stepcost(ds,st))
    b=sorted(c for c,_ in cs)
    print('ties added',tol, f"mean {sum(b)/len(b):7.0f} <=1k {within(1000)} <=2k {within(2000):3d} <=4k {within(4000):3d} <=8k {within(8000):3d} views {nviews}")
