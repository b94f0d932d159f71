import { expect } from 'chai'
import * as fs from 'fs'
import * as path from 'path'
import * as ts from 'typescript'
import { REPO_ROOT } from '../support/paths'

/**
 * One store module per bridge table (bridge/store/): every statement on these tables lives there,
 * so that a table's rules (its guards, its locks, what a status means) are written once. Migrations
 * are schema, not statements; tests and benchmarks set up rows of their own.
 */
const TABLES = ['bridge_swap', 'bridge_swap_event', 'bridge_tx', 'bridge_late_deposit', 'bridge_vault_hold']
const SCANNED = ['bridge', 'common', 'api', 'indexer', 'launcher', 'db']
const EXEMPT = [path.join('bridge', 'store'), path.join('db', 'migrations')]
const SOURCE = /\.(ts|js|mjs|cjs)$/
const TABLE = new RegExp(`\\b(${TABLES.join('|')})\\b`, 'g')

/**
 * Where a source names one of the tables in a string or template (its SQL), as `line: table`. A
 * comment naming a table is no statement, and is left alone.
 */
function tableMentions(fileName: string, text: string): string[] {
    const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true)
    const found: string[] = []
    const visit = (node: ts.Node) => {
        if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
            const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1
            for (const match of node.text.matchAll(TABLE)) found.push(`${line}: ${match[1]}`)
        }
        ts.forEachChild(node, visit)
    }
    visit(source)
    return found
}

function sources(dir: string, out: string[] = []): string[] {
    for (const entry of fs.readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true })) {
        const relative = path.join(dir, entry.name)
        if (entry.name === 'node_modules') continue
        if (entry.isDirectory()) sources(relative, out)
        else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(relative)
    }
    return out
}

const inside = (file: string, dir: string) => file === dir || file.startsWith(dir + path.sep)

describe('bridge store boundary', function () {
    it('finds a table in SQL, with interpolations, and not in comments', function () {
        const text = [
            '// SELECT * FROM bridge_tx (a comment)',
            '/** bridge_swap_event in a doc comment */',
            'const a = `UPDATE bridge_swap SET x = ${1} WHERE id IN (SELECT swap_id FROM bridge_late_deposit)`',
            "const b = 'SELECT * FROM bridge_swap_event'",
            "const c = 'bridge_swaps is a metric, bridge_provider_leg another table'",
        ].join('\n')
        expect(tableMentions('sample.ts', text)).to.deep.equal(['3: bridge_swap', '3: bridge_late_deposit', '4: bridge_swap_event'])
    })

    it('has every statement on the swap, transaction, late-deposit and event tables in bridge/store/', function () {
        const files = SCANNED.flatMap((dir) => sources(dir))
        const offenders: string[] = []
        let inStore = 0
        for (const file of files) {
            if (inside(file, EXEMPT[1])) continue
            const text = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8')
            // Only a file that names a table anywhere is worth parsing.
            if (!TABLES.some((table) => text.includes(table))) continue
            const mentions = tableMentions(file, text)
            if (inside(file, EXEMPT[0])) inStore += mentions.length
            else offenders.push(...mentions.map((m) => `${file}:${m}`))
        }
        // The scan reads the store too: a scan that found nothing anywhere would pass for the wrong reason.
        expect(inStore).to.be.greaterThan(TABLES.length)
        expect(offenders, 'statements on bridge tables outside bridge/store/').to.deep.equal([])
    })
})
