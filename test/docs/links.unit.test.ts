import { expect } from 'chai'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { REPO_ROOT } from '../support/paths'

/**
 * Every relative link in README.md and docs/**\/*.md points at a file that exists, and a link's
 * #anchor at a heading of that file (GitHub's heading ids). Links to other sites are not followed.
 */

const ROOT = REPO_ROOT

/** README.md and every .md under docs/, relative to root. */
function markdownFiles(root: string): string[] {
    const files = fs.existsSync(path.join(root, 'README.md')) ? ['README.md'] : []
    const walk = (dir: string) => {
        for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
            const rel = path.join(dir, entry.name)
            if (entry.isDirectory()) walk(rel)
            else if (entry.name.endsWith('.md')) files.push(rel)
        }
    }
    if (fs.existsSync(path.join(root, 'docs'))) walk('docs')
    return files
}

/** The text outside fenced code blocks, one entry per line (code lines emptied). */
function prose(text: string): string[] {
    let fenced = false
    return text.split('\n').map((line) => {
        if (line.trimStart().startsWith('```')) {
            fenced = !fenced
            return ''
        }
        return fenced ? '' : line
    })
}

/** GitHub's heading ids: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
    const seen = new Map<string, number>()
    const ids = new Set<string>()
    for (const line of prose(text)) {
        const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
        if (!heading) continue
        const base = heading[1].toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')
        const n = seen.get(base) ?? 0
        seen.set(base, n + 1)
        ids.add(n === 0 ? base : `${base}-${n}`)
    }
    return ids
}

/** Each broken relative link as "file:line: target (why)". */
export function brokenLinks(root: string): string[] {
    const broken: string[] = []
    for (const file of markdownFiles(root)) {
        const lines = prose(fs.readFileSync(path.join(root, file), 'utf8'))
        lines.forEach((line, i) => {
            // Inline code may hold "](" that is no link.
            const text = line.replace(/`[^`]*`/g, '``')
            for (const [, target] of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
                if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // http:, https:, mailto:
                const [where, anchor] = target.split('#', 2)
                const resolved = where === '' ? path.join(root, file) : path.resolve(path.dirname(path.join(root, file)), decodeURI(where))
                const at = `${file}:${i + 1}: ${target}`
                if (!resolved.startsWith(root + path.sep) && resolved !== root) broken.push(`${at} (outside the repository)`)
                else if (!fs.existsSync(resolved)) broken.push(`${at} (no such file)`)
                else if (anchor !== undefined && resolved.endsWith('.md') && !anchors(fs.readFileSync(resolved, 'utf8')).has(anchor.toLowerCase())) broken.push(`${at} (no such heading)`)
            }
        })
    }
    return broken
}

const SOURCE_DIRS = ['abi', 'api', 'bench', 'bridge', 'common', 'db', 'devnet', 'indexer', 'launcher', 'test']

/** Each pointer from a source file's text to docs/ (`docs/x.md` or `docs/x.md#anchor`) that does not resolve. */
export function brokenPointers(root: string): string[] {
    const broken: string[] = []
    const walk = (dir: string) => {
        for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
            const rel = path.join(dir, entry.name)
            // Installed packages (bench/peers/ponder/node_modules) are not this repository's code.
            if (entry.isDirectory()) {
                if (entry.name !== 'node_modules') walk(rel)
            } else if (/\.(ts|js)$/.test(entry.name)) check(rel)
        }
    }
    const check = (file: string) => {
        fs.readFileSync(path.join(root, file), 'utf8').split('\n').forEach((line, i) => {
            for (const [target] of line.matchAll(/\bdocs\/[\w./-]+\.md(?:#[\w-]+)?/g)) {
                const [where, anchor] = target.split('#', 2)
                const resolved = path.join(root, where)
                const at = `${file}:${i + 1}: ${target}`
                if (!fs.existsSync(resolved)) broken.push(`${at} (no such file)`)
                else if (anchor !== undefined && !anchors(fs.readFileSync(resolved, 'utf8')).has(anchor.toLowerCase())) broken.push(`${at} (no such heading)`)
            }
        })
    }
    for (const dir of SOURCE_DIRS) if (fs.existsSync(path.join(root, dir))) walk(dir)
    return broken
}

describe('documentation links', function () {
    it('every relative link in README.md and docs/ resolves to a file, and its anchor to a heading', function () {
        expect(markdownFiles(ROOT).length).to.be.greaterThan(5)
        expect(brokenLinks(ROOT)).to.deep.equal([])
    })

    it('every pointer from the code to docs/ names a file that exists, and its anchor a heading', function () {
        expect(brokenPointers(ROOT).filter((broken) => !broken.startsWith(path.join('test', 'docs')))).to.deep.equal([])
    })

    it('reports a missing file and a missing heading', function () {
        const root = fs.mkdtempSync(path.join(os.tmpdir(), 'doc-links-'))
        try {
            fs.mkdirSync(path.join(root, 'docs', 'bridge'), { recursive: true })
            fs.writeFileSync(path.join(root, 'README.md'), '# Title\n\n[ok](docs/a.md#a-b-c) [gone](docs/missing.md) [web](https://example.com/x)\n')
            fs.writeFileSync(path.join(root, 'docs', 'a.md'), '# A (`b`): c\n\n[self](#a-b-c) [bad](#nope) `[code](nowhere.md)`\n\n```\n[fenced](nowhere.md)\n```\n')
            fs.writeFileSync(path.join(root, 'docs', 'bridge', 'b.md'), '[up](../a.md) [up2](../../README.md#title) [wrong](../../a.md)\n')
            fs.mkdirSync(path.join(root, 'api'))
            fs.writeFileSync(path.join(root, 'api', 'x.ts'), '// docs/a.md#a-b-c docs/a.md#nope, docs/gone.md.\n')
            expect(brokenPointers(root)).to.deep.equal([
                `${path.join('api', 'x.ts')}:1: docs/a.md#nope (no such heading)`,
                `${path.join('api', 'x.ts')}:1: docs/gone.md (no such file)`,
            ])
            expect(brokenLinks(root)).to.deep.equal([
                'README.md:3: docs/missing.md (no such file)',
                `${path.join('docs', 'a.md')}:3: #nope (no such heading)`,
                `${path.join('docs', 'bridge', 'b.md')}:1: ../../a.md (no such file)`,
            ])
        } finally {
            fs.rmSync(root, { recursive: true, force: true })
        }
    })
})
