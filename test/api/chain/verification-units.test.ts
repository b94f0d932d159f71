import { expect } from 'chai'
import { matchCreation, matchRuntime, metadataStart } from '../../../api/chain/verification/bytecode'
import { CompilePool } from '../../../api/chain/verification/compile-pool'
import { Compilers } from '../../../api/chain/verification/compilers'

/** A solc-like tail: a CBOR map (0xa2 ...) of `n` bytes, then its length in two bytes. */
function metadata(fill: string, n = 8): string {
    return 'a2' + fill.repeat(n - 1) + n.toString(16).padStart(4, '0')
}

describe('contract verification: matching and the compile pool', function () {
    const body = '6080604052' + '7f' + '00'.repeat(32) + '5050'
    // The immutable is the 32 bytes after the PUSH32 (0x7f) at byte 5.
    const immutables = { '7': [{ start: 6, length: 32 }] }
    const compiled = body + metadata('11')

    it('finds solc\'s metadata by its length bytes, and only a CBOR map', function () {
        expect(metadataStart(compiled)).to.equal(body.length)
        expect(metadataStart(body + '00' + '0001')).to.equal(undefined)
        expect(metadataStart('00')).to.equal(undefined)
    })

    it('matches runtime code fully with the immutables taken from the chain, partially when only the metadata differs', function () {
        const deployed = body.replace('00'.repeat(32), 'ab'.repeat(32))
        expect(matchRuntime(compiled, immutables, deployed + metadata('11'))).to.equal('full')
        expect(matchRuntime(compiled, immutables, deployed + metadata('22'))).to.equal('partial')
        // Without the immutable ranges the value on chain is a difference in the code.
        expect(matchRuntime(compiled, {}, deployed + metadata('11'))).to.equal(undefined)
        expect(matchRuntime(compiled, immutables, deployed.replace('6080', '6081') + metadata('11'))).to.equal(undefined)
        expect(matchRuntime(compiled, immutables, deployed + metadata('22', 9))).to.equal(undefined)
    })

    it('reads the constructor arguments after the creation code, matched fully or partially', function () {
        const args = '00'.repeat(31) + '2a'
        expect(matchCreation(compiled, compiled + args)).to.deep.equal({ match: 'full', constructorArgs: args })
        expect(matchCreation(compiled, body + metadata('33') + args)).to.deep.equal({ match: 'partial', constructorArgs: args })
        expect(matchCreation(compiled, '0x' + compiled)).to.deep.equal({ match: 'full', constructorArgs: '' })
        expect(matchCreation(compiled, body)).to.equal(undefined)
    })

    it('ends a compile past its time limit with that reason, and compiles in a fresh process after it', async function () {
        const strict = new CompilePool({ processes: 1, timeoutMs: 1, memoryMb: 1536, outputMaxBytes: 16 << 20 })
        const bundled = require.resolve('solc/soljson.js')
        try {
            // Loading the compiler alone takes far longer than a millisecond.
            const failed = await strict.version(bundled).then(() => 'answered', (err: Error) => err.message)
            expect(failed).to.equal('compilation took longer than 0.001 s')
        } finally {
            await strict.close()
        }
        const pool = new CompilePool({ processes: 1, timeoutMs: 300_000, memoryMb: 1536, outputMaxBytes: 16 << 20 })
        try {
            const compilers = new Compilers(pool)
            const [only] = await compilers.list()
            expect(only.version).to.match(/^v0\.8\.30\+commit\.[0-9a-f]{8}$/)
            for (const spelling of [only.version, only.version.slice(1), '0.8.30', `${only.version.slice(1)}.Emscripten.clang`]) {
                expect((await compilers.find(spelling))?.version, spelling).to.equal(only.version)
            }
            expect(await compilers.find('0.8.29')).to.equal(undefined)
            const output = await pool.compile(only.soljson, JSON.stringify({
                language: 'Solidity', sources: { 'A.sol': { content: 'contract A {}' } },
                settings: { outputSelection: { '*': { '*': ['evm.deployedBytecode.object'] } } },
            }))
            expect(output.contracts['A.sol'].A.evm.deployedBytecode.object).to.match(/^[0-9a-f]+$/)
            const broken = await pool.compile(only.soljson, 'not json')
            expect(broken.errors[0].severity).to.equal('error')
        } finally {
            await pool.close()
        }
    })
})
