#!/usr/bin/env python3
"""Write the HTML and Markdown fixtures of both seeds (this directory) from
the seed texts in ../../../testdata/seeds: the same numbers in different
layouts. Run: python3 parse/testdata/forms/gen.py

Every figure comes from the seed's All measurements table and is checked
against the seed's own glued matrix and prefill lines before writing;
parse/forms_test.go then checks that all forms parse to identical rows.
"""

import re

def read_seed(path):
    lines = open(path, encoding='utf-8').read().split('\n')
    d = {'kicker': lines[0], 'title': lines[1], 'subtitle': lines[2], 'sections': []}
    i = 3
    sec = None
    while i < len(lines):
        l = lines[i]
        if l in ('Hardware', 'Engine', 'Run'):
            sec = (l, [])
            d['sections'].append(sec)
            i += 1
            while i < len(lines) and lines[i].startswith('- '):
                k = lines[i][2:]
                v = lines[i+1]
                v = v[2:] if v.startswith('- ') else v
                sec[1].append((k, v))
                i += 2
            continue
        if l == 'Launch command':
            d['launch'] = lines[i+1]
            i += 2
            continue
        if l == 'All measurements':
            cap, head = lines[i+1].split('| Phase', 1)
            d['full_caption'] = cap
            d['header'] = [c.strip() for c in ('| Phase' + head).strip('|').split('|')]
            rows = []
            j = i + 3
            while j < len(lines) and lines[j].startswith('| '):
                rows.append([c.strip() for c in lines[j].strip().strip('|').split('|')])
                j += 1
            d['rows'] = rows
            d['legend_end'] = lines[j] if j < len(lines) else ''
            i = j + 1
            continue
        if l == 'Sustained decode':
            cap = lines[i+1].split('|', 1)[0]
            d['matrix_caption'] = cap
            d['concs'] = [c.strip() for c in lines[i+1].split('|', 1)[1].strip().strip('|').split('|')][1:]
            j = i + 3
            ctxs = []
            while lines[j].startswith('| '):
                ctxs.append(lines[j].strip('| ').split('|')[0].strip())
                j += 1
            d['ctxs'] = ctxs
            d['notes'] = []
            while lines[j] != 'All measurements':
                d['notes'].append(lines[j]); j += 1
            i = j
            continue
        if l == 'Prefill':
            d['prefill_caption'] = 'prompt tok/s by context length'
            i += 1
            continue
        i += 1
    # figures from the full table
    h = d['header']
    col = {n: h.index(n) for n in h}
    d['prefill'] = [(r[col['Context']], r[col['Total tok/s']], r[col['TTFT']]) for r in d['rows'] if r[0] == 'Prefill']
    cells = {}
    for r in d['rows']:
        if r[0] != 'Sustained decode':
            continue
        st = r[col['Status']]
        cells[(r[col['Context']], r[col['Requests at once']])] = (st, r[col['Total tok/s']], r[col['TTFT']])
    d['cells'] = cells
    return d

import html, os

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = {'000': os.path.join(HERE, '..', '..', '..', 'testdata', 'seeds', '000_acc4a01d882a0446.txt'),
         '001': os.path.join(HERE, '..', '..', '..', 'testdata', 'seeds', '001_03cf9c936d246394.txt')}
OUT = HERE + os.sep

def check(path, d):
    text = open(path, encoding='utf-8').read()
    lines = text.split('\n')
    # matrix rows as printed, glued
    for ctx in d['ctxs']:
        row = [l for l in lines if re.match(r'^\| %s \| (?!1 \|)' % re.escape(ctx), l) and not l.startswith('| %s | 1 | Valid' % ctx)]
        cells = [c.strip() for c in row[0].strip('|').split('|')][1:]
        assert len(cells) == len(d['concs']), (ctx, cells)
        for conc, printed in zip(d['concs'], cells):
            st, tok, ttft = d['cells'][(ctx, conc)]
            want = st if st != 'Valid' else tok + ttft + ' TTFT'
            assert printed == want, (ctx, conc, printed, want)
    for ctx, tok, ttft in d['prefill']:
        want = '%s context%s%s TTFT' % (ctx, tok, ttft)
        assert want in text, want

def cell(d, ctx, conc):
    return d['cells'][(ctx, conc)]

E = html.escape

def html000(d):
    """dl/dt/dd metadata, prefill cards, div wrappers, h2 sections, thead tables."""
    o = []
    w = o.append
    w('<!DOCTYPE html>')
    w('<html lang="en">')
    w('<head>')
    w('  <meta charset="utf-8">')
    w('  <title>%s</title>' % E(d['title']))
    w('  <style>.card{display:inline-block} td span{display:block}</style>')
    w('</head>')
    w('<body>')
    w('<div class="page">')
    w('  <header class="hero">')
    w('    <p class="kicker">%s</p>' % E(d['kicker']))
    w('    <h1>%s</h1>' % E(d['title']))
    parts = d['subtitle'].split(' · ')
    # The quantization and the shape ran together when the page was flattened:
    # they are separate elements with no separator between them.
    q = [s for s in d['sections'] if s[0] == 'Engine'][0][1]
    quant = dict(q)['Quantization']
    spans = []
    for p in parts:
        if p.startswith(quant) and p != quant:
            spans.append('<span class="quant">%s</span><span class="shape">%s</span>' % (E(quant), E(p[len(quant):])))
        else:
            spans.append('<span>%s</span>' % E(p))
    w('    <p class="meta">' + ' · '.join(spans) + '</p>')
    w('  </header>')
    w('  <div class="grid">')
    for name, pairs in d['sections']:
        w('    <section class="panel">')
        w('      <h2>%s</h2>' % E(name))
        w('      <dl>')
        for k, v in pairs:
            w('        <div class="row"><dt>%s</dt>' % E(k))
            w('          <dd>%s</dd></div>' % E(v))
        w('      </dl>')
        w('    </section>')
    w('  </div>')
    w('  <section>')
    w('    <h2>Launch command</h2>')
    w('    <pre><code>%s</code></pre>' % E(d['launch']))
    w('  </section>')
    w('  <section>')
    w('    <h2>Prefill</h2>')
    w('    <p class="caption">%s</p>' % E(d['prefill_caption']))
    w('    <div class="cards">')
    for ctx, tok, ttft in d['prefill']:
        w('      <div class="card">')
        w('        <div class="label">%s context</div>' % E(ctx))
        w('        <div class="value">%s</div>' % E(tok))
        w('        <div class="sub">%s TTFT</div>' % E(ttft))
        w('      </div>')
    w('    </div>')
    w('  </section>')
    w('  <section>')
    w('    <h2>Sustained decode</h2>')
    w('    <p class="caption">%s</p>' % E(d['matrix_caption']))
    w('    <div class="scroll"><table class="matrix">')
    w('      <thead><tr><th>Context</th>' + ''.join('<th>%s</th>' % c for c in d['concs']) + '</tr></thead>')
    w('      <tbody>')
    for ctx in d['ctxs']:
        w('        <tr>')
        w('          <th scope="row">%s</th>' % E(ctx))
        for conc in d['concs']:
            st, tok, ttft = cell(d, ctx, conc)
            if st != 'Valid':
                w('          <td class="status"><span>%s</span></td>' % E(st))
            else:
                w('          <td><span class="tok">%s</span><span class="ttft">%s TTFT</span></td>' % (E(tok), E(ttft)))
        w('        </tr>')
    w('      </tbody>')
    w('    </table></div>')
    for n in d['notes']:
        w('    <p class="note">%s</p>' % E(n))
    w('  </section>')
    w('  <section>')
    w('    <h2>All measurements</h2>')
    w('    <p class="caption">%s</p>' % E(d['full_caption']))
    w('    <table>')
    w('      <thead>')
    w('        <tr>' + ''.join('<th>%s</th>' % E(h) for h in d['header']) + '</tr>')
    w('      </thead>')
    w('      <tbody>')
    for r in d['rows']:
        w('        <tr>' + ''.join('<td>%s</td>' % E(c) for c in r) + '</tr>')
    w('      </tbody>')
    w('    </table>')
    w('    <p class="note">%s</p>' % E(d['legend_end']))
    w('  </section>')
    w('</div>')
    w('</body>')
    w('</html>')
    return '\n'.join(o) + '\n'

def ent(s):
    """Write with entities: no-break spaces, middots, em dashes."""
    s = E(s)
    return s.replace('·', '&middot;').replace('—', '&#8212;')

def html001(d):
    """List items and two-column tables, entities, comments, h3 sections
    under an h2 wrapper, uppercase tags, th in the first tbody row, <br>
    cells, prefill as a table, CRLF line ends."""
    o = []
    w = o.append
    w('<!doctype html>')
    w('<!-- flattened into the seed text by the publisher\'s exporter -->')
    w('<HTML><BODY>')
    w('<main>')
    w('<article>')
    w('<h1 id="top">')
    w('  %s' % ent(d['title']))
    w('</h1>')
    w('<div><p>%s</p></div>' % ent(d['subtitle'].replace(' · ', ' · ')))
    w('<section><h2>Configuration</h2>')
    for name, pairs in d['sections']:
        w('<div class="block">')
        w('<h3>%s</h3>' % ent(name))
        if name == 'Engine':
            w('<TABLE class="kv">')
            for k, v in pairs:
                w('  <TR><TH>%s</TH><TD>%s</TD></TR>' % (ent(k), ent(v)))
            w('</TABLE>')
        elif name == 'Hardware':
            w('<ul>')
            for k, v in pairs:
                w('  <li><span class="k">%s</span><span class="v">%s</span></li>' % (ent(k), ent(v).replace(' GB', '&nbsp;GB')))
            w('</ul>')
        else:
            w('<ul class="plain">')
            for k, v in pairs:
                w('  <li>%s:   %s</li>' % (ent(k), ent(v)))
            w('</ul>')
        w('</div>')
    w('</section>')
    w('<section>')
    w('<h3>Launch command <button>Copy</button></h3>')
    w('<div class="code"><code>%s</code></div>' % E(d['launch']))
    w('</section>')
    w('<section><h3>Prefill</h3>')
    w('<table>')
    w('  <tr><th>Context</th><th>Prompt tok/s</th><th>TTFT</th></tr>')
    for ctx, tok, ttft in d['prefill']:
        w('  <tr><td>%s</td><td>%s</td><td>%s</td></tr>' % (ctx, tok, ent(ttft)))
    w('</table>')
    w('</section>')
    w('<section><h3>Sustained decode</h3>')
    w('<table>')
    w('<caption>%s</caption>' % ent(d['matrix_caption']))
    w('<tbody>')
    w('<tr><th>Context</th>' + ''.join('<th>%s</th>' % c for c in d['concs']) + '</tr>')
    for ctx in d['ctxs']:
        cells = []
        for conc in d['concs']:
            st, tok, ttft = cell(d, ctx, conc)
            if st != 'Valid':
                cells.append('<td><em>%s</em></td>' % st)
            else:
                cells.append('<td>\n    %s<br>\n    <small>%s TTFT</small></td>' % (tok, ent(ttft)))
        w('<tr><td><b>%s</b></td>%s</tr>' % (ctx, ''.join(cells)))
    w('</tbody>')
    w('</table>')
    for n in d['notes']:
        w('<p>%s</p>' % ent(n))
    w('</section>')
    w('<section><h3>All measurements</h3>')
    w('<p>%s</p>' % ent(d['full_caption']))
    w('<table><tbody>')
    w('<tr>' + ''.join('<th>%s</th>' % ent(h) for h in d['header']) + '</tr>')
    for r in d['rows']:
        w('<tr>' + ''.join('<td> %s </td>' % ent(c) for c in r) + '</tr>')
    w('</tbody></table>')
    w('<p>%s</p>' % ent(d['legend_end']))
    w('</section>')
    w('</article>')
    w('</main>')
    w('</BODY></HTML>')
    return '\r\n'.join(o) + '\r\n'

def mdcell(s):
    return s.replace('|', '\\|')

def md000(d):
    """'- **Key:** value' lists, fenced launch, prefill list, '·' cells."""
    o = []
    w = o.append
    w('*%s*' % d['kicker'])
    w('')
    w('# %s' % d['title'])
    w('')
    w(d['subtitle'])
    w('')
    for name, pairs in d['sections']:
        w('## %s' % name)
        w('')
        for k, v in pairs:
            w('- **%s:** %s' % (k, v))
        w('')
    w('## Launch command')
    w('')
    w('```sh')
    w(d['launch'])
    w('```')
    w('')
    w('## Prefill')
    w('')
    w(d['prefill_caption'] + ':')
    w('')
    for ctx, tok, ttft in d['prefill']:
        w('- %s context: %s tok/s, %s TTFT' % (ctx, tok, ttft))
    w('')
    w('## Sustained decode')
    w('')
    w(d['matrix_caption'])
    w('')
    w('| Context | ' + ' | '.join(d['concs']) + ' |')
    w('|---|' + '---:|' * len(d['concs']))
    for ctx in d['ctxs']:
        cells = []
        for conc in d['concs']:
            st, tok, ttft = cell(d, ctx, conc)
            cells.append(st if st != 'Valid' else '%s · %s' % (tok, ttft))
        w('| %s | %s |' % (ctx, ' | '.join(cells)))
    w('')
    for n in d['notes']:
        w(n)
        w('')
    w('## All measurements')
    w('')
    w(d['full_caption'])
    w('')
    w('| ' + ' | '.join(d['header']) + ' |')
    w('|' + '---|' * len(d['header']))
    for r in d['rows']:
        w('| ' + ' | '.join(mdcell(c) for c in r) + ' |')
    w('')
    w(d['legend_end'])
    return '\n'.join(o) + '\n'

def md001(d):
    """Two-column tables, '- Key: Value' list, '<br>' matrix cells, setext title."""
    o = []
    w = o.append
    w(d['title'])
    w('=' * 20)
    w('')
    w(d['subtitle'])
    w('')
    for name, pairs in d['sections']:
        w('### %s' % name)
        w('')
        if name == 'Run':
            for k, v in pairs:
                w('* %s: %s' % (k, v))
        else:
            w('| Key | Value |')
            w('|:----|:------|')
            for k, v in pairs:
                w('| %s | %s |' % (k, mdcell(v)))
        w('')
    w('### Launch command')
    w('')
    w('~~~')
    w(d['launch'])
    w('~~~')
    w('')
    w('### Prefill')
    w('')
    w('| Context | Prompt tok/s | TTFT |')
    w('|---|---|---|')
    for ctx, tok, ttft in d['prefill']:
        w('| %s | %s | %s |' % (ctx, tok, ttft))
    w('')
    w('### Sustained decode')
    w('')
    w('_%s_' % d['matrix_caption'])
    w('')
    w('| Context | ' + ' | '.join(d['concs']) + ' |')
    w('| --- | ' + ' | '.join('---' for _ in d['concs']) + ' |')
    for ctx in d['ctxs']:
        cells = []
        for conc in d['concs']:
            st, tok, ttft = cell(d, ctx, conc)
            cells.append('**%s**' % st if st != 'Valid' else '%s tok/s<br>%s TTFT' % (tok, ttft))
        w('| **%s** | %s |' % (ctx, ' | '.join(cells)))
    w('')
    for n in d['notes']:
        w('> ' + n)
        w('')
    w('### All measurements')
    w('')
    w(d['full_caption'])
    w('')
    w(' | '.join(d['header']))
    w(' | '.join('---' for _ in d['header']))
    for r in d['rows']:
        w(' | '.join(mdcell(c) for c in r))
    w('')
    w(d['legend_end'])
    return '\n'.join(o) + '\n'

os.makedirs(OUT, exist_ok=True)
for key, path in SEEDS.items():
    d = read_seed(path)
    check(path, d)
    base = os.path.basename(path)[:-4]
    if key == '000':
        files = {'.html': html000(d), '.md': md000(d)}
    else:
        files = {'.html': html001(d), '.md': md001(d)}
    for ext, body in files.items():
        with open(OUT + base + ext, 'w', encoding='utf-8', newline='') as f:
            f.write(body)
print('ok')
