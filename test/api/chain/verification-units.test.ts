import { expect } from 'chai'
import { CompilePool } from '../../../api/chain/verification/compile-pool'
import { Compilers } from '../../../api/chain/verification/compilers'

describe('contract verification: the compile pool', function () {
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

    it('refuses an output past its cap before parsing it, and kills a compile past its memory cap, naming each; the pool compiles on after', async function () {
        // Contracts that each `new` both of the level below: the output doubles with each level.
        const amplifying = (levels: number) => {
            let source = 'pragma solidity ^0.8.0;\ncontract A0 { uint x; }\ncontract B0 { uint y; }\n'
            for (let i = 1; i < levels; i++) {
                source += `contract A${i} { A${i - 1} a = new A${i - 1}(); B${i - 1} b = new B${i - 1}(); }\ncontract B${i} { B${i - 1} b = new B${i - 1}(); A${i - 1} a = new A${i - 1}(); }\n`
            }
            return source
        }
        const input = (levels: number, selection: object) => JSON.stringify({
            language: 'Solidity', sources: { 'A.sol': { content: amplifying(levels) } }, settings: { outputSelection: selection },
        })
        const fields = ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object', 'evm.deployedBytecode.immutableReferences', 'metadata']
        const soljson = require.resolve('solc/soljson.js')
        const pool = new CompilePool({ processes: 1, timeoutMs: 300_000, memoryMb: 512, outputMaxBytes: 3 << 20 })
        try {
            // Every contract of 12 levels: some 7 MB of output.
            const all = await pool.compile(soljson, input(12, { '*': { '*': fields } })).then(() => 'compiled', (err: Error) => err.message)
            expect(all).to.match(/^the compiler's output \([\d.]+ MB\) exceeded its cap of 3 MB \(VERIFIER_OUTPUT_MAX_MB\)$/)
            // The named contract alone is what verification asks for: under the cap, and nothing else comes back.
            const named = await pool.compile(soljson, input(12, { 'A.sol': { A11: fields } }))
            expect(Object.keys(named.contracts['A.sol'])).to.deep.equal(['A11'])
            expect(JSON.parse(named.contracts['A.sol'].A11.metadata!).language).to.equal('Solidity')
            // 16 levels take the compiler far past 512 MB.
            const big = await pool.compile(soljson, input(16, { '*': { '*': fields } })).then(() => 'compiled', (err: Error) => err.message)
            expect(big).to.match(/512 MB .*\(VERIFIER_COMPILE_MEMORY_MB\)/)
            const again = await pool.compile(soljson, input(2, { '*': { '*': fields } }))
            expect(Object.keys(again.contracts['A.sol'])).to.have.members(['A0', 'B0', 'A1', 'B1'])
        } finally {
            await pool.close()
        }
    })
})
