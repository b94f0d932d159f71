import { expect } from 'chai'
import { createLogger, setLogOutput, urlForLog } from '../../common/logger'

describe('logger: secrets never written (unit)', () => {
    it('a node URL is written as its origin: an API key in the path, the query or the credentials never appears', () => {
        expect(urlForLog('https://mainnet.infura.io/v3/0123456789abcdef')).to.equal('https://mainnet.infura.io/…')
        expect(urlForLog('https://rpc.example.org:8545/?apikey=s3cret')).to.equal('https://rpc.example.org:8545/…')
        expect(urlForLog('wss://user:s3cret@node.example.org')).to.equal('wss://node.example.org/…')
        expect(urlForLog('http://127.0.0.1:8545')).to.equal('http://127.0.0.1:8545')
        expect(urlForLog('not a url s3cret')).to.equal('[redacted]')
    })

    it('rpcUrl and rpc fields, also inside an error, are logged without their secret; other secrets as [redacted]', () => {
        const lines: string[] = []
        setLogOutput((line) => void lines.push(line))
        try {
            const log = createLogger('test')
            log.info({ rpc: 'https://node.example.org/v2/key-in-path' }, 'starting')
            const err = Object.assign(new Error('timeout'), { rpcUrl: 'https://u:pass-word@node.example.org/?token=query-key' })
            log.error({ err, password: 'hunter2' }, 'failed')
        } finally {
            setLogOutput((line) => void process.stdout.write(line))
        }
        const written = lines.join('')
        for (const secret of ['key-in-path', 'pass-word', 'query-key', 'hunter2']) expect(written).to.not.include(secret)
        const [start, failure] = lines.map((line) => JSON.parse(line))
        expect(start.rpc).to.equal('https://node.example.org/…')
        expect(failure.err.rpcUrl).to.equal('https://node.example.org/…')
        expect(failure.password).to.equal('[redacted]')
    })
})
