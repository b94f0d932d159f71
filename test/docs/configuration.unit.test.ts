import { expect } from 'chai'
import * as fs from 'fs'
import { CONFIGURATION_DOC, renderConfigurationDoc } from '../../devnet/configuration-doc'

describe('docs/configuration.md', function () {
    it('holds the variable tables as the schemas render them (npm run docs:config rewrites them)', function () {
        const current = fs.readFileSync(CONFIGURATION_DOC, 'utf8')
        expect(current === renderConfigurationDoc(current), 'docs/configuration.md differs from the schemas: run npm run docs:config').to.equal(true)
    })
})
