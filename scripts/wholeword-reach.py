# wholeword-reach.py [repos] [path_weight]: of the answer files an eval dump
# (ctxd eval recall --dump) shows nowhere in the context, where a BM25 over whole
# words (letters and digits, as eval/baseline.go) plus the path's words as a
# field (weight path_weight) ranks them at the parent commit, beside ctxd's
# lexical rank (the eval JSON's Misses) and BM25's; and how many files that
# ranking's first 10 / 25 hold that ctxd did not gather (hword2, issue 25).
# Inputs: D (dumps per repo) and E (eval JSON per repo) below; clones in /work/data.
# Whole-word (+ path segment) BM25 ranking of the missing answer files, per dump.
import os,re,sys,json,glob,math,subprocess,collections
EXT={'.go','.py','.js','.mjs','.cjs','.ts','.mts','.cts','.tsx','.jsx','.vue','.svelte'}
D='/tmp/lead/d7'; E='/tmp/lead/ev100-0db6'
WRE=re.compile(r'[^\W_]+')  # letters+digits, like eval.words
def words(s): return WRE.findall(s.lower())
def segs(p): return words(p)
cache={}
def index(repo, commit):
    key=(repo,commit)
    if key in cache: return cache[key]
    cache.clear()
    root='/work/data/'+repo
    ls=subprocess.run(['git','-C',root,'ls-tree','-r','-z','--format=%(objectname) %(objectsize) %(path)',commit+'^'],capture_output=True).stdout.decode('utf-8','replace').split('\0')
    objs=[]
    for l in ls:
        if not l: continue
        o,sz,p=l.split(' ',2)
        if os.path.splitext(p)[1] in EXT and sz!='-' and int(sz)<(1<<20): objs.append((o,p))
    inp=''.join(o+'\n' for o,_ in objs).encode()
    out=subprocess.run(['git','-C',root,'cat-file','--batch'],input=inp,capture_output=True).stdout
    docs=[]; i=0
    for o,p in objs:
        nl=out.index(b'\n',i); hdr=out[i:nl].split(); n=int(hdr[2]); body=out[nl+1:nl+1+n]; i=nl+1+n+1
        tf=collections.Counter(words(body.decode('utf-8','replace')))
        pf=collections.Counter(segs(p))
        docs.append((p,tf,sum(tf.values()),pf,sum(pf.values())))
    df=collections.Counter(); pdf=collections.Counter()
    for p,tf,n,pf,pn in docs:
        df.update(tf.keys()); pdf.update(pf.keys())
    N=len(docs); avg=max(sum(d[2] for d in docs)/max(N,1),1); pavg=max(sum(d[4] for d in docs)/max(N,1),1)
    cache[key]=(docs,df,pdf,N,avg,pavg)
    return cache[key]
def rank(repo,commit,req,pathw):
    docs,df,pdf,N,avg,pavg=index(repo,commit)
    q=sorted(set(words(req)))
    k1,b=1.2,0.75
    hits=[]
    for p,tf,n,pf,pn in docs:
        s=0
        for w in q:
            f=tf.get(w,0); g=pf.get(w,0)
            dfw=df.get(w,0)
            if f:
                idf=math.log(1+(N-dfw+.5)/(dfw+.5)); s+=idf*f*(k1+1)/(f+k1*(1-b+b*n/avg))
            if g and pathw:
                d2=pdf.get(w,0); idf=math.log(1+(N-d2+.5)/(d2+.5)); s+=pathw*idf*g*(k1+1)/(g+k1*(1-b+b*pn/pavg))
        if s>0: hits.append((-s,p))
    hits.sort()
    return [p for _,p in hits]
repos=sys.argv[1].split(',') if len(sys.argv)>1 else ['gin','cli','requests','httpx','express','vite','fastapi']
pathw=float(sys.argv[2]) if len(sys.argv)>2 else 2.5
tot=collections.Counter()
for repo in repos:
    ev=json.load(open(f'{E}/{repo}.json'))
    why={}
    for bud,ms in ev['Misses'].items():
        for m in ms:
            for f,w in zip(m['Missing'],m['Why']): why[(bud,m['Commit'][:12],f)]=w
    for bud in ['8000','32000']:
        for fn in sorted(glob.glob(f'{D}/{repo}/*-{bud}.txt')):
            t=open(fn).read()
            commit=re.search(r'^commit (\S+)',t).group(1)
            req=re.search(r'^request: (.*)$',t,re.M).group(1)
            ans=t.split('\nanswer:\n')[1].split('\nincluded')[0]
            gathered=set(re.findall(r'^[* ] (\S+)\s',t.split('\nincluded')[1].split('\nbm25 whole')[0],re.M))
            anspaths=set()
            miss=[]
            for m in re.finditer(r'^  (\S+) rank=(\d+) bm25rank=(\d+) view=(\S+)',ans,re.M):
                anspaths.add(m.group(1))
                if m.group(4)=='-': miss.append((m.group(1),int(m.group(3))))
            if not miss: continue
            r=rank(repo,commit,req,pathw)
            pos={p:i+1 for i,p in enumerate(r)}
            top10=[p for p in r[:10] if p not in gathered]
            top25=[p for p in r[:25] if p not in gathered]
            for f,b25 in miss:
                w=why.get((bud,commit[:12],f),'?')
                m=re.search(r'lexical rank (\d+)',w); lr=int(m.group(1)) if m else 9999
                wr=pos.get(f,9999)
                tot[(bud,'missing')]+=1
                for k in (10,25):
                    if wr<=k and lr>k: tot[(bud,f'ww<={k} lex>{k}')]+=1
                    if b25<=k and b25>0 and lr>k: tot[(bud,f'bm25<={k} lex>{k}')]+=1
                print(repo,bud,commit[:8],f,'lex',lr,'ww',wr,'bm25',b25,'|',req[:70],'|',w[:40])
            tot[(bud,'requests')]+=1
            tot[(bud,'ungathered in ww top10')]+=len(top10); tot[(bud,'answers among them')]+=len([p for p in top10 if p in anspaths])
            tot[(bud,'ungathered in ww top25')]+=len(top25); tot[(bud,'answers among them25')]+=len([p for p in top25 if p in anspaths])
for k in sorted(tot): print(k,tot[k])
