import { expect } from 'chai'
import { repoPath } from '../support/paths'

// Plain CommonJS shared with the runner (scripts/test.mjs), outside the TypeScript build.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const suites = require(repoPath('scripts', 'test-suites.cjs')) as {
    ORDER: string[]
    LONGEST_FIRST: string[]
    testFiles(): string[]
    classify(): Record<string, string[]>
    sourceOf(arg: string): string
    runPath(suite: string, source: string): string
}

describe('test suites: every test file in exactly one suite', function () {
    it('puts each test/**/*.test.ts in one suite, none in two,', function () {
        const bySuite = suites.classify()
        const all = suites.testFiles()
        const placed = suites.ORDER.flatMap((suite) => bySuite[suite])
        expect(placed.slice().sort()).to.deep.equal(all.slice().sort())
        expect(new Set(placed).size).to.equal(placed.length)
        for (const suite of suites.ORDER) expect(bySuite[suite], suite).to.not.be.empty
    })

    it('names a file by its suite: x.unit.test.ts is unit, x.e2e.test.ts is e2e, the rest integration', function () {
        const bySuite = suites.classify()
        for (const file of bySuite.unit) expect(file.endsWith('.unit.test.ts'), file).to.equal(true)
        for (const file of bySuite.e2e) expect(file.endsWith('.e2e.test.ts'), file).to.equal(true)
        for (const file of bySuite.integration) expect(/\.(unit|e2e)\.test\.ts$/.test(file), file).to.equal(false)
    })

    it('starts the files known to take longest first, and each of them exists', function () {
        const all = suites.testFiles()
        expect(all.slice(0, suites.LONGEST_FIRST.length)).to.deep.equal(suites.LONGEST_FIRST)
        const rest = all.slice(suites.LONGEST_FIRST.length)
        expect(rest).to.deep.equal(rest.slice().sort())
    })

    it('finds a test source from its compiled path and runs unit tests from source, the others from lib/', function () {
        expect(suites.sourceOf('lib/test/bridge/history.test.js')).to.equal('test/bridge/history.test.ts')
        expect(suites.sourceOf(repoPath('test', 'common', 'sealing.unit.test.ts'))).to.equal('test/common/sealing.unit.test.ts')
        expect(suites.runPath('unit', 'test/common/sealing.unit.test.ts')).to.equal('test/common/sealing.unit.test.ts')
        expect(suites.runPath('integration', 'test/db/postgres.test.ts')).to.equal('lib/test/db/postgres.test.js')
    })
})
