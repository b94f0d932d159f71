import * as fs from 'fs'
import * as path from 'path'
import { expect } from 'chai'
import { loadArtifact } from '../../abi'
import {
    ABI_DIR, Artifact, artifactFile, COMPILER_SETTINGS, compileContracts, listArtifactFiles, renderAbiModule, serialiseArtifact,
} from '../../devnet/build-contracts'

const REBUILD = 'stale: run `npm run contracts:build` and commit abi/'

describe('committed contract artifacts (abi/)', () => {
    let compiled: Record<string, Artifact>

    before(() => {
        compiled = compileContracts()
    })

    it('hold exactly the contracts that contracts/**/*.sol compile to, byte for byte', () => {
        const expectedFiles = Object.values(compiled).map(artifactFile).sort()
        expect(listArtifactFiles(), REBUILD).to.deep.equal(expectedFiles)
        for (const artifact of Object.values(compiled)) {
            const file = artifactFile(artifact)
            const committed = fs.readFileSync(path.join(ABI_DIR, file), 'utf8')
            expect(JSON.parse(committed), `${file} ${REBUILD}`).to.deep.equal(artifact)
            // Same content is not enough: key order and the trailing newline keep rebuilds diff-free.
            expect(committed, `${file} ${REBUILD}`).to.equal(serialiseArtifact(artifact))
        }
    })

    it('abi/index.ts is generated from the same ABIs', () => {
        expect(fs.readFileSync(path.join(ABI_DIR, 'index.ts'), 'utf8'), `abi/index.ts ${REBUILD}`).to.equal(renderAbiModule(compiled))
    })

    it('carry the verified source: compiler version and settings, and the full text of every source unit', () => {
        const token = compiled.PlatformToken
        expect(token.sourceName).to.equal('contracts/PlatformToken.sol')
        expect(token.compiler.version).to.match(/^0\.8\.30\+commit\.[0-9a-f]{8}\./)
        expect(token.compiler.settings).to.deep.equal({ optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun' })
        expect(token.sources['contracts/PlatformToken.sol']).to.equal(fs.readFileSync(path.join(ABI_DIR, '../contracts/PlatformToken.sol'), 'utf8'))
        expect(token.sources).to.have.property('@openzeppelin/contracts/token/ERC20/ERC20.sol').that.contains('abstract contract ERC20')
        for (const artifact of Object.values(compiled)) {
            expect(artifact.sources, artifact.contractName).to.have.property(artifact.sourceName)
            expect(artifact.compiler.settings).to.deep.equal(COMPILER_SETTINGS)
            expect(artifact.bytecode, artifact.contractName).to.match(/^0x[0-9a-f]{100,}$/)
        }
        // Test-only contracts are kept apart from the ones the stack deploys.
        expect(artifactFile(compiled.DemoNft)).to.equal('test/DemoNft.json')
        expect(artifactFile(compiled.AmmRouter)).to.equal('AmmRouter.json')
    })

    it('are what the loader in abi/index.ts returns', () => {
        expect(loadArtifact('AmmRouter')).to.deep.equal(compiled.AmmRouter)
        expect(loadArtifact('Bytes32Token')).to.deep.equal(compiled.Bytes32Token)
    })
})
