import { expect } from 'chai'
import express from 'express'
import { z } from 'zod'
import { ApiDoc } from '../../common/service/api-doc'
import { listen } from '../../common/service/listen'
import { registeredRoutes } from '../support/registered-routes'

function sampleDoc(): ApiDoc {
    return new ApiDoc({ title: 'Sample', version: '1', errorSchema: z.object({ message: z.string() }) })
}

describe('service kit: OpenAPI documents written where routes are registered', () => {
    it('serves the document and the page, and lists exactly the registered routes', async () => {
        const doc = sampleDoc()
        const app = express()
        const things = doc.router('/api/things', 'Things')
        things.get('/:id', {
            operationId: 'getThing',
            summary: 'One thing',
            params: z.object({ id: z.string().regex(/^\d+$/) }),
            query: z.object({ full: z.enum(['true', 'false']).optional() }),
            responses: { 200: { description: 'The thing', schema: z.object({ id: z.string() }) }, 404: 'No such thing', 422: 'Bad id' },
        }, (req, res) => void res.json({ id: req.params.id }))
        doc.mount(app, things)
        doc.serve(app)
        app.get('/stray', (_req, res) => void res.send('x'))

        const server = await listen(app, 0)
        try {
            const body = await (await fetch(`http://127.0.0.1:${server.port}/api/docs/openapi.json`)).json() as any
            expect(body.openapi).to.equal('3.1.0')
            const op = body.paths['/api/things/{id}'].get
            expect(op.operationId).to.equal('getThing')
            expect(op.parameters.map((p: any) => `${p.in}:${p.name}`)).to.deep.equal(['path:id', 'query:full'])
            expect(op.responses['404'].content['application/json'].schema.properties).to.have.key('message')
            const page = await fetch(`http://127.0.0.1:${server.port}/api/docs/`)
            expect(page.status).to.equal(200)
            expect(await page.text()).to.contain('swagger-ui')
            // The root points a newcomer at both, and the document names its server.
            expect(await (await fetch(`http://127.0.0.1:${server.port}/`)).json()).to.deep.equal({ service: 'Sample', docs: '/api/docs', openapi: '/api/docs/openapi.json' })
            expect(body.servers).to.deep.equal([{ url: '/', description: 'this server' }])
        } finally {
            await server.close()
        }
        // The stray app-level route has no documented mount: it shows as "?/stray" and never matches.
        expect(registeredRoutes(app)).to.deep.equal(['get /', 'get /api/docs/openapi.json', 'get /api/things/{id}', 'get ?/stray'])
        expect(doc.documentedRoutes().map((r) => `${r.method} ${r.path}`).sort()).to.deep.equal(['get /', 'get /api/docs/openapi.json', 'get /api/things/{id}'])
    })

    it('lets a page of any origin read the document: a cross-origin GET and its preflight carry Access-Control-Allow-Origin', async () => {
        const doc = sampleDoc()
        const app = express()
        doc.serve(app)
        const server = await listen(app, 0)
        const url = `http://127.0.0.1:${server.port}/api/docs/openapi.json`
        const origin = 'https://explorer.example.org'
        try {
            // What the Blockscout frontend's /api-docs page sends from its own host (NEXT_PUBLIC_API_SPEC_URL).
            const get = await fetch(url, { headers: { Origin: origin } })
            expect(get.status).to.equal(200)
            expect(get.headers.get('access-control-allow-origin')).to.equal('*')
            expect((await get.json() as { openapi: string }).openapi).to.equal('3.1.0')
            const head = await fetch(url, { method: 'HEAD', headers: { Origin: origin } })
            expect(head.status).to.equal(200)
            expect(head.headers.get('access-control-allow-origin')).to.equal('*')
            // A client that adds a header of its own (swagger-ui's Accept is safe; an X- header is not) preflights first.
            const preflight = await fetch(url, {
                method: 'OPTIONS',
                headers: { Origin: origin, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-requested-with' },
            })
            expect(preflight.status).to.equal(204)
            expect(preflight.headers.get('access-control-allow-origin')).to.equal('*')
            expect(preflight.headers.get('access-control-allow-methods')).to.equal('GET,HEAD,OPTIONS')
            expect(preflight.headers.get('access-control-allow-headers')).to.equal('x-requested-with')
            // Only the document: the interactive page stays same-origin, as a page needs no CORS.
            const page = await fetch(`http://127.0.0.1:${server.port}/api/docs/`, { headers: { Origin: origin } })
            expect(page.status).to.equal(200)
            expect(page.headers.get('access-control-allow-origin')).to.equal(null)
        } finally {
            await server.close()
        }
        // The CORS layer is middleware, not a route: the document still lists exactly what is registered.
        expect(registeredRoutes(app)).to.deep.equal(['get /', 'get /api/docs/openapi.json'])
    })

    it('refuses a route whose path parameters, success answer or bad-input answer are not documented', () => {
        const router = sampleDoc().router('/x', 'X')
        const ok = { 200: 'fine' as const }
        expect(() => router.get('/:id', { operationId: 'a', summary: 's', responses: { 200: { description: 'ok' }, 404: 'no' } }, () => undefined)).to.throw(/path parameters \[id\]/)
        expect(() => router.get('/a', { operationId: 'b', summary: 's', responses: { 404: 'no' } }, () => undefined)).to.throw(/no success answer/)
        expect(() => router.post('/b', { operationId: 'c', summary: 's', body: z.object({}), responses: { 200: { description: 'ok' } } }, () => undefined)).to.throw(/no 4xx/)
        expect(() => router.get('/d', { operationId: 'd', summary: 's', query: z.object({ h: z.string().regex(/^0x[0-9a-f]+$/i).optional() }), responses: { 200: 'ok', 422: 'bad' } }, () => undefined)).to.throw(/has flags/)
        router.get('/c', { operationId: 'getC', summary: 's', responses: ok }, () => undefined)
        expect(() => router.get('/c', { operationId: 'getCAgain', summary: 's', responses: ok }, () => undefined)).to.throw(/documented twice/)
        // operationIds name SDK methods: one name per operation, and a camelCase one.
        expect(() => router.get('/e', { operationId: 'getC', summary: 's', responses: ok }, () => undefined)).to.throw(/operationId getC is already get \/x\/c's/)
        expect(() => router.get('/f', { operationId: 'get-f', summary: 's', responses: ok }, () => undefined)).to.throw(/not camelCase/)
    })

    it('writes a route\'s example request and its enums into the document, and refuses an example the schemas refuse', () => {
        const doc = sampleDoc()
        const router = doc.router('/x', 'X')
        const query = z.object({ chain: z.string(), amount: z.string().regex(/^\d+(\.\d+)?$/) })
        const body = z.object({ chain: z.string(), to: z.string() })
        router.post('/:id', {
            operationId: 'postThing',
            summary: 's',
            params: z.object({ id: z.string() }),
            query,
            body,
            example: { params: { id: '7' }, query: { chain: 'BSC', amount: '1.5' }, body: { chain: 'ETH', to: '0x31C1a6Bf6b2A5f6e7A0E3b1D0cB2bD24aA1cBd24' } },
            enums: { chain: ['BSC', 'ETH'] },
            responses: { 200: 'ok', 422: 'bad' },
        }, () => undefined)
        const op = (doc.document() as any).paths['/x/{id}'].post
        const parameter = (name: string) => op.parameters.find((p: any) => p.name === name)
        expect(parameter('id').example).to.equal('7')
        expect(parameter('amount').example).to.equal('1.5')
        expect(parameter('chain').schema.enum).to.deep.equal(['BSC', 'ETH'])
        expect(op.requestBody.content['application/json'].example).to.deep.equal({ chain: 'ETH', to: '0x31C1a6Bf6b2A5f6e7A0E3b1D0cB2bD24aA1cBd24' })
        expect(op.requestBody.content['application/json'].schema.properties.chain.enum).to.deep.equal(['BSC', 'ETH'])
        expect(() => router.get('/y', { operationId: 'getY', summary: 's', query, example: { query: { chain: 'BSC', amount: 'lots' } }, responses: { 200: 'ok', 422: 'bad' } }, () => undefined))
            .to.throw(/example query is refused/)
        expect(() => router.get('/z', { operationId: 'getZ', summary: 's', example: { body: {} }, responses: { 200: 'ok' } }, () => undefined))
            .to.throw(/example body for a route that takes none/)
        const misspelt = new ApiDoc({ title: 'Sample', version: '1', errorSchema: z.object({ message: z.string() }), examples: { postThign: { body: {} } } })
        expect(() => misspelt.document()).to.throw(/examples for operations this document lacks: postThign/)
    })

    it('nests routers, runs handlers registered before a route first, and lists both at their true paths', async () => {
        const doc = sampleDoc()
        const app = express()
        const outer = doc.router('/api', 'Outer')
        const inner = doc.router('/api/inner', 'Inner')
        const order: string[] = []
        inner.post('/thing', {
            operationId: 'makeThing',
            summary: 'A thing',
            responses: {
                201: { description: 'Made', schema: z.object({ ok: z.boolean() }), alternatives: { 'text/html': z.string() } },
            },
        }, (_req, res) => {
            order.push('handler')
            res.status(201).json({ ok: true })
        })
        outer.before('post', '/inner/thing', (_req, _res, next) => {
            order.push('before')
            next()
        })
        outer.mount(inner)
        doc.mount(app, outer)
        expect(() => outer.mount(doc.router('/elsewhere', 'Elsewhere'))).to.throw(/not below \/api/)

        const server = await listen(app, 0)
        try {
            expect((await fetch(`http://127.0.0.1:${server.port}/api/inner/thing`, { method: 'POST' })).status).to.equal(201)
        } finally {
            await server.close()
        }
        expect(order).to.deep.equal(['before', 'handler'])
        expect(registeredRoutes(app)).to.deep.equal(['post /api/inner/thing'])
        const content = (doc.document() as any).paths['/api/inner/thing'].post.responses['201'].content
        expect(Object.keys(content)).to.deep.equal(['application/json', 'text/html'])
    })
})
