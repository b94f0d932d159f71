import { expect } from 'chai'
import * as fs from 'fs'
import * as path from 'path'
import { repoPath } from '../../support/paths'

/**
 * What makes a renderer read the database: importing ../db or a query function, taking a Db,
 * running a statement, calling a load* function or related(). Row types from ../queries are fine.
 */
function databaseReads(source: string): string[] {
    const rules: [RegExp, string][] = [
        [/from\s+'\.\.\/db'/, 'imports ../db'],
        [/\bDb\b/, 'names the Db type'],
        [/\.query\s*[<(]/, 'runs a statement'],
        [/\bload[A-Z]\w*\s*\(/, 'calls a load* function'],
        // A call, not a doc comment naming related().
        [/\brelated\s*\(\s*[^)\s]/, 'calls related()'],
        [/import\s*\{[^}]*\b(knownAddresses|tokensByIds)\b[^}]*\}/, 'imports a query function'],
    ]
    return rules.filter(([pattern]) => pattern.test(source)).map(([, what]) => what)
}

describe('chain API: renderers take rows and do not read the database (unit)', () => {
    const dir = repoPath('api', 'chain', 'render')
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.ts'))

    it('finds the renderers', () => {
        expect(files).to.include.members(['address.ts', 'log.ts', 'token-transfer.ts', 'internal-transaction.ts', 'token.ts', 'transaction.ts'])
    })

    for (const file of files) {
        it(`render/${file} neither imports ../db nor loads anything`, () => {
            expect(databaseReads(fs.readFileSync(path.join(dir, file), 'utf8'))).to.deep.equal([])
        })
    }

    it('the check catches a renderer that reads (so the tests above can fail)', () => {
        const reading = [
            "import { Db } from '../db'",
            "import { knownAddresses } from '../queries/addresses'",
            'export async function renderLogs(db: Db, rows: LogRow[]) {',
            '    const address = await loadAddresses(db, rows.map((r) => r.address))',
            "    const { rows: more } = await db.query('SELECT 1')",
            '}',
        ].join('\n')
        expect(databaseReads(reading)).to.deep.equal([
            'imports ../db', 'names the Db type', 'runs a statement', 'calls a load* function', 'imports a query function',
        ])
        expect(databaseReads("import { related } from '../queries/related'\nconst r = await related(db, {})")).to.deep.equal(['calls related()'])
    })
})
