import { expect } from 'chai'
import * as fs from 'fs'
import * as path from 'path'
import { REPO_ROOT } from '../support/paths'

const ROOT = REPO_ROOT
const SKIP = new Set(['node_modules', 'lib', '.git', '.data'])
const IMPORT = /(?:import|export)\s+(?:type\s+)?(?:[^'"]*?\s+from\s+)?['"](\.[^'"]*)['"]/g

function sources(dir: string, out: Map<string, string>): Map<string, string> {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        if (SKIP.has(entry.name)) continue
        const full = path.join(dir, entry.name)
        if (entry.isDirectory()) sources(full, out)
        else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.set(path.relative(ROOT, full), fs.readFileSync(full, 'utf8'))
    }
    return out
}

function importGraph(files: Map<string, string>): Map<string, string[]> {
    const graph = new Map<string, string[]>()
    for (const [file, text] of files) {
        const targets: string[] = []
        for (const match of text.matchAll(IMPORT)) {
            const base = path.normalize(path.join(path.dirname(file), match[1]))
            const target = [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => files.has(candidate))
            if (target) targets.push(target)
        }
        graph.set(file, targets)
    }
    return graph
}

/** Strongly connected components of more than one module (Tarjan), each an import circle. */
function circles(graph: Map<string, string[]>): string[][] {
    const index = new Map<string, number>()
    const low = new Map<string, number>()
    const stack: string[] = []
    const onStack = new Set<string>()
    const found: string[][] = []
    const visit = (node: string) => {
        index.set(node, index.size)
        low.set(node, index.get(node)!)
        stack.push(node)
        onStack.add(node)
        for (const next of graph.get(node) ?? []) {
            if (!index.has(next)) {
                visit(next)
                low.set(node, Math.min(low.get(node)!, low.get(next)!))
            } else if (onStack.has(next)) {
                low.set(node, Math.min(low.get(node)!, index.get(next)!))
            }
        }
        if (low.get(node) === index.get(node)) {
            const component: string[] = []
            let member: string
            do {
                member = stack.pop()!
                onStack.delete(member)
                component.push(member)
            } while (member !== node)
            if (component.length > 1) found.push(component.sort())
        }
    }
    for (const node of graph.keys()) if (!index.has(node)) visit(node)
    return found
}

describe('import graph', function () {
    it('has no circle: every module can be read before the modules that import it', function () {
        const graph = importGraph(sources(ROOT, new Map()))
        expect(graph.size).to.be.greaterThan(300)
        // The entities squid-typeorm-codegen generates from schema.graphql import each other for
        // their relations and @derivedFrom lists; TypeORM reads them through thunks (`() => Pair`)
        // once every module is loaded, so a circle made only of generated models is how they work.
        const generated = (file: string) => file.startsWith(path.join('model', 'generated') + path.sep)
        expect(circles(graph).filter((circle) => !circle.every(generated))).to.deep.equal([])
    })

    it('runs downward: the shared layer imports no surface, and no surface imports another or the tooling', function () {
        const graph = importGraph(sources(ROOT, new Map()))
        const top = (file: string) => file.split(path.sep)[0]
        const allowed: Record<string, string[]> = {
            common: ['common', 'db', 'abi', 'model'],
            db: ['common', 'db', 'abi', 'model'],
            abi: ['abi'],
            model: ['model'],
            indexer: ['indexer', 'common', 'db', 'abi', 'model'],
            api: ['api', 'common', 'db', 'abi', 'model'],
            bridge: ['bridge', 'common', 'db', 'abi', 'model'],
        }
        const upward: string[] = []
        for (const [file, targets] of graph) {
            const layer = allowed[top(file)]
            if (!layer) continue
            for (const target of targets) if (!layer.includes(top(target))) upward.push(`${file} -> ${target}`)
        }
        expect(upward).to.deep.equal([])
    })

    it('finds a circle when there is one', function () {
        const graph = importGraph(new Map([
            ['a.ts', "import { b } from './b'"],
            ['b.ts', "import type { a } from './a'"],
            ['c.ts', "import { a } from './a'"],
        ]))
        expect(circles(graph)).to.deep.equal([['a.ts', 'b.ts']])
    })
})
