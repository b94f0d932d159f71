import { OpenAPIRegistry, OpenApiGeneratorV31, ResponseConfig, RouteConfig } from '@asteasolutions/zod-to-openapi'
import express, { ErrorRequestHandler, Express, Request, RequestHandler, Router } from 'express'
import swaggerUi from 'swagger-ui-express'
import { z } from 'zod'
import { readCors } from './cors'

/**
 * The OpenAPI 3.1 document of one HTTP surface, written where its routes are registered: a
 * route is added to express and to the document by one call (DocumentedRouter), from the same
 * zod schemas its handler validates with. Served at /api/docs (a Swagger UI page) and
 * /api/docs/openapi.json. Rules in docs/openapi.md.
 */

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'
const METHODS: readonly Method[] = ['get', 'post', 'put', 'patch', 'delete']
const DOCS_PAGE = '/api/docs'
const DOCS_DOCUMENT = '/api/docs/openapi.json'

/** One documented answer. A bare string on a 4xx/5xx status is that description with the surface's error body. */
export interface Answer {
    description: string
    /** The JSON body; absent for answers without one (204, 304). */
    schema?: z.ZodType
    /** Defaults to application/json. */
    contentType?: string
    /** The same answer in further media types, chosen by the request's Accept (e.g. an HTML page for a browser). */
    alternatives?: Record<string, z.ZodType>
    headers?: z.ZodObject
}

export interface Operation {
    /**
     * The name an SDK generator gives the method: camelCase verb and noun (quoteSwap, listWallets),
     * chosen for what the route does, never derived from its path; unique in the document.
     */
    operationId: string
    summary: string
    description?: string
    /** Defaults to the router's tag. */
    tags?: string[]
    /** Path parameters: one key per `:name` in the route's path. */
    params?: z.ZodObject
    query?: z.ZodObject
    headers?: z.ZodObject
    /** The request body, JSON unless bodyType says otherwise. */
    body?: z.ZodType
    /** The body's media type when not JSON (multipart/form-data, application/x-www-form-urlencoded). */
    bodyType?: string
    /** The body may be left out altogether. */
    bodyOptional?: boolean
    /** Names of security schemes (ApiDoc.securityScheme), any one of which the route accepts. */
    security?: string[]
    /**
     * A request that works, shown in the document (Swagger UI pre-fills it instead of "string").
     * Registration parses it with params/query/body, so an example the handler would refuse is an error.
     */
    example?: RequestExample
    /**
     * Values a string field of the query or the JSON body takes, known when the routes are built
     * (configured chains and tokens): the document lists them as an enum; the handler still answers
     * any other value with its own error.
     */
    enums?: Record<string, readonly string[]>
    responses: Record<number, Answer | string>
}

export interface RequestExample {
    params?: Record<string, string>
    query?: Record<string, string>
    body?: unknown
}

export interface ApiDocOptions {
    title: string
    version: string
    description?: string
    /** The body every error of this surface has (its ErrorSurface). */
    errorSchema: z.ZodType
    /** Answers any route of the surface may give, e.g. 503 while the database is away. */
    everyRoute?: Record<number, string>
    /** Example requests by operationId, for a surface that keeps them in one module; a route's own `example` wins. */
    examples?: Record<string, RequestExample>
}

/** The mount path a DocumentedRouter's express router carries, so a test can list what is registered and where. */
export const MOUNT_PATH = Symbol.for('api-doc.mount-path')

export interface RouterOptions {
    /** The error body of this router's routes, where it differs from the document's (one port, two surfaces). */
    errorSchema?: z.ZodType
    mergeParams?: boolean
}

export interface DocumentedRoute {
    method: Method
    /** OpenAPI form: /blocks/{block}. */
    path: string
    operationId: string
}

/** The URL path of a route registered at `path` on a router mounted at `mountPath`. */
export function joinPath(mountPath: string, path: string): string {
    return path === '/' ? (mountPath || '/') : `${mountPath.replace(/\/$/, '')}${path}`
}

const ROUTE_TEMPLATE = Symbol('api-doc.route-template')

/** The express path of the documented route a request matched (/api/v2/blocks/:block), if any. */
export function matchedRoute(req: Request): string | undefined {
    return (req as Request & { [ROUTE_TEMPLATE]?: string })[ROUTE_TEMPLATE]
}

/** Marks the requests of one route with its path, for matchedRoute: the raw URL is never a label. */
function recordRoute(template: string): RequestHandler {
    return (req, _res, next) => {
        (req as Request & { [ROUTE_TEMPLATE]?: string })[ROUTE_TEMPLATE] = template
        next()
    }
}

/** An express path in OpenAPI form: /blocks/:block becomes /blocks/{block}. */
export function toOpenApiPath(path: string): string {
    return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')
}

export class ApiDoc {
    private readonly registry = new OpenAPIRegistry()
    private readonly routes: DocumentedRoute[] = []
    private readonly requests = new Map<string, Pick<Operation, 'example' | 'enums' | 'bodyType'>>()
    private generated?: object

    constructor(private readonly options: ApiDocOptions) {}

    /** A router whose routes are documented as they are registered; mount it with mount(). */
    router(mountPath: string, tag: string, options: RouterOptions = {}): DocumentedRouter {
        return new DocumentedRouter(this, mountPath, tag, options)
    }

    mount(app: Express, router: DocumentedRouter): void {
        app.use(router.mountPath, router.express)
    }

    securityScheme(name: string, scheme: { type: 'http'; scheme: string; bearerFormat?: string } | { type: 'apiKey'; in: 'header' | 'cookie' | 'query'; name: string; description?: string }): void {
        this.registry.registerComponent('securitySchemes', name, scheme)
    }

    /**
     * Serves the document at /api/docs/openapi.json, the interactive page at /api/docs, and at / a
     * small index pointing at both, so a newcomer who opens the port's root finds the reference.
     */
    serve(app: Express): void {
        const root = this.router('/', 'Documentation')
        root.get('/', {
            operationId: 'getServiceIndex',
            summary: 'Where this service is documented',
            responses: {
                200: {
                    description: 'The service and the links to its documentation',
                    schema: z.object({ service: z.string(), description: z.string().optional(), docs: z.literal(DOCS_PAGE), openapi: z.literal(DOCS_DOCUMENT) }),
                },
            },
        }, (_req, res) => {
            res.json({ service: this.options.title, description: this.options.description, docs: DOCS_PAGE, openapi: DOCS_DOCUMENT })
        })
        this.mount(app, root)
        const docs = this.router('/api/docs', 'Documentation')
        // Any origin may read the document (and preflight it): a docs page on another host, such as the
        // Blockscout frontend's /api-docs (NEXT_PUBLIC_API_SPEC_URL), loads it from the browser.
        docs.express.use('/openapi.json', readCors)
        docs.get('/openapi.json', {
            operationId: 'getOpenApiDocument',
            summary: 'This OpenAPI 3.1 document',
            description: 'Readable from any origin (CORS: Access-Control-Allow-Origin `*`, GET, HEAD and OPTIONS), so a docs page on another host can show it.',
            responses: { 200: { description: 'The document', schema: z.looseObject({ openapi: z.string(), paths: z.record(z.string(), z.unknown()) }) } },
        }, (_req, res) => {
            res.json(this.document())
        })
        this.mount(app, docs)
        const page = { swaggerOptions: { url: DOCS_DOCUMENT }, customSiteTitle: this.options.title }
        app.use('/api/docs', swaggerUi.serveFiles(undefined, page), swaggerUi.setup(undefined, page))
    }

    /** Every documented (method, path). */
    documentedRoutes(): readonly DocumentedRoute[] {
        return this.routes
    }

    document(): object {
        // A misspelt operationId would leave its example out without a word.
        const unused = Object.keys(this.options.examples ?? {}).filter((id) => !this.routes.some((r) => r.operationId === id))
        if (unused.length) throw new Error(`examples for operations this document lacks: ${unused.join(', ')}`)
        this.generated ??= new OpenApiGeneratorV31(this.registry.definitions).generateDocument({
            openapi: '3.1.0',
            info: { title: this.options.title, version: this.options.version, description: this.options.description },
            // Relative: the document is right wherever the service is reached (a load balancer, a port).
            servers: [{ url: '/', description: 'this server' }],
        })
        for (const { method, path, operationId } of this.routes) {
            const request = this.requests.get(operationId)
            if (request) describeRequest(this.generated as GeneratedDocument, (this.generated as GeneratedDocument).paths[path][method], request)
        }
        return this.generated
    }

    /** @internal DocumentedRouter's half of registering a route. */
    add(method: Method, path: string, tag: string, op: Operation, errorSchema = this.options.errorSchema): void {
        const openApiPath = toOpenApiPath(path)
        if (/[*?()]|\{[^}]*\}.*:/.test(path)) throw new Error(`${method} ${path}: only :name path parameters can be documented`)
        const pathNames = [...openApiPath.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort()
        const paramNames = Object.keys(op.params?.shape ?? {}).sort()
        if (pathNames.join() !== paramNames.join()) {
            throw new Error(`${method} ${path}: path parameters [${pathNames}] documented as [${paramNames}]`)
        }
        const statuses = Object.keys(op.responses).map(Number)
        if (!statuses.some((s) => s < 400)) throw new Error(`${method} ${path}: no success answer documented`)
        if ((op.params || op.query || op.body || op.headers) && !statuses.some((s) => s >= 400 && s < 500)) {
            throw new Error(`${method} ${path}: takes input but documents no 4xx for bad input`)
        }
        if (this.routes.some((r) => r.method === method && r.path === openApiPath)) throw new Error(`${method} ${path}: documented twice`)
        if (!/^[a-z][A-Za-z0-9]*$/.test(op.operationId)) throw new Error(`${method} ${path}: operationId ${op.operationId} is not camelCase`)
        const taken = this.routes.find((r) => r.operationId === op.operationId)
        if (taken) throw new Error(`${method} ${path}: operationId ${op.operationId} is already ${taken.method} ${taken.path}'s`)
        for (const schema of [op.params, op.query, op.headers, op.body]) {
            const flagged = schema && flaggedPattern(schema)
            // A JSON Schema pattern has no flags: /^0x[0-9a-f]+$/i would be documented as lower-case only.
            if (flagged) throw new Error(`${method} ${path}: the pattern ${flagged} has flags, which the document cannot state; spell them out ([0-9a-fA-F])`)
        }
        const example = op.example ?? this.options.examples?.[op.operationId]
        for (const [part, schema] of [['params', op.params], ['query', op.query], ['body', op.body]] as const) {
            const value = example?.[part]
            if (value === undefined) continue
            if (!schema) throw new Error(`${method} ${path}: an example ${part} for a route that takes none`)
            const parsed = schema.safeParse(value)
            if (!parsed.success) throw new Error(`${method} ${path}: the example ${part} is refused: ${parsed.error.message}`)
        }
        this.routes.push({ method, path: openApiPath, operationId: op.operationId })
        if (example || op.enums) this.requests.set(op.operationId, { example, enums: op.enums, bodyType: op.bodyType })
        this.generated = undefined

        const responses: Record<number, ResponseConfig> = {}
        // Express refuses a path parameter that is not valid percent-encoding (`/blocks/%`) before any handler.
        const malformedPath = pathNames.length > 0 && !(400 in op.responses) ? { 400: 'A path parameter is not valid percent-encoding' } : {}
        for (const [status, answer] of Object.entries({ ...this.options.everyRoute, ...malformedPath, ...op.responses })) {
            responses[Number(status)] = response(Number(status), answer, errorSchema)
        }
        const route: RouteConfig = {
            method,
            path: openApiPath,
            operationId: op.operationId,
            summary: op.summary,
            description: op.description,
            tags: op.tags ?? [tag],
            security: op.security?.map((name) => ({ [name]: [] })),
            request: {
                params: op.params,
                query: op.query,
                headers: op.headers,
                body: op.body ? { required: !op.bodyOptional, content: { [op.bodyType ?? 'application/json']: { schema: op.body } } } : undefined,
            },
            responses,
        }
        this.registry.registerPath(route)
    }

}

interface GeneratedParameter { in: string; name: string; schema?: Record<string, unknown>; example?: unknown }
interface GeneratedOperation {
    parameters?: GeneratedParameter[]
    requestBody?: { content: Record<string, { schema: Record<string, unknown>; example?: unknown }> }
}
interface GeneratedDocument {
    paths: Record<string, Record<string, GeneratedOperation>>
    components?: { schemas?: Record<string, Record<string, unknown>> }
}

/** Writes a route's example request and its enums into its generated operation. */
function describeRequest(document: GeneratedDocument, operation: GeneratedOperation, request: Pick<Operation, 'example' | 'enums' | 'bodyType'>): void {
    for (const parameter of operation.parameters ?? []) {
        const example = parameter.in === 'path' ? request.example?.params?.[parameter.name]
            : parameter.in === 'query' ? request.example?.query?.[parameter.name] : undefined
        if (example !== undefined) parameter.example = example
        const values = parameter.in === 'query' ? request.enums?.[parameter.name] : undefined
        if (values && parameter.schema) parameter.schema.enum = [...values]
    }
    const media = operation.requestBody?.content[request.bodyType ?? 'application/json']
    if (!media) return
    if (request.example?.body !== undefined) media.example = request.example.body
    // A named body schema is a reference: its component carries the enum (the same values wherever it is used).
    const ref = media.schema.$ref as string | undefined
    const body = ref ? document.components?.schemas?.[ref.replace('#/components/schemas/', '')] : media.schema
    const properties = body?.properties as Record<string, Record<string, unknown>> | undefined
    for (const [name, values] of Object.entries(request.enums ?? {})) {
        if (properties?.[name]) properties[name].enum = [...values]
    }
}

/** The first regular expression with flags anywhere in a zod schema. */
function flaggedPattern(schema: unknown, seen = new Set<unknown>()): RegExp | undefined {
    if (!schema || typeof schema !== 'object' || seen.has(schema)) return undefined
    seen.add(schema)
    if (schema instanceof RegExp) return schema.flags ? schema : undefined
    const def = (schema as { _zod?: { def?: Record<string, unknown> } })._zod?.def
    const parts = def ? Object.values(def) : Array.isArray(schema) ? schema : Object.values(schema)
    for (const part of parts) {
        const found = flaggedPattern(part, seen)
        if (found) return found
    }
    return undefined
}

function response(status: number, answer: Answer | string, errorSchema: z.ZodType): ResponseConfig {
    const a: Answer = typeof answer === 'string'
        ? { description: answer, schema: status >= 400 ? errorSchema : undefined }
        : answer
    return {
        description: a.description,
        headers: a.headers,
        content: a.schema ? {
            [a.contentType ?? 'application/json']: { schema: a.schema },
            ...Object.fromEntries(Object.entries(a.alternatives ?? {}).map(([type, schema]) => [type, { schema }])),
        } : undefined,
    }
}

/** An express Router whose get/post/put/patch/delete also document the route in its ApiDoc. */
export class DocumentedRouter {
    readonly express: Router

    constructor(private readonly doc: ApiDoc, readonly mountPath: string, private readonly tag: string, private readonly options: RouterOptions = {}) {
        this.express = express.Router({ mergeParams: options.mergeParams })
        Object.defineProperty(this.express, MOUNT_PATH, { value: mountPath })
    }

    get(path: string, op: Operation, ...handlers: RequestHandler[]): this { return this.route('get', path, op, handlers) }
    post(path: string, op: Operation, ...handlers: RequestHandler[]): this { return this.route('post', path, op, handlers) }
    put(path: string, op: Operation, ...handlers: RequestHandler[]): this { return this.route('put', path, op, handlers) }
    patch(path: string, op: Operation, ...handlers: RequestHandler[]): this { return this.route('patch', path, op, handlers) }
    delete(path: string, op: Operation, ...handlers: RequestHandler[]): this { return this.route('delete', path, op, handlers) }

    /** Middleware for this router's routes, or its error handler (not documented: it is not a route). */
    use(...handlers: RequestHandler[]): this
    use(...handlers: ErrorRequestHandler[]): this
    use(...handlers: (RequestHandler | ErrorRequestHandler)[]): this {
        this.express.use(...handlers)
        return this
    }

    /**
     * Mounts a router of the same document inside this one, at the part of its mountPath below this
     * router's (a router of /api mounts one of /api/auth at /auth), so this router's middleware runs first.
     */
    mount(child: DocumentedRouter): this {
        const prefix = this.mountPath.replace(/\/$/, '')
        if (!child.mountPath.startsWith(`${prefix}/`)) throw new Error(`${child.mountPath} is not below ${this.mountPath}`)
        this.express.use(child.mountPath.slice(prefix.length), child.express)
        return this
    }

    /**
     * Handlers that run ahead of a route documented on this router or one mounted in it, at this
     * point of the middleware order (e.g. a rate limit taken before the body is parsed). They form
     * an express route layer of the same path, so the route is listed where it is, and documented once.
     */
    before(method: Method, path: string, ...handlers: RequestHandler[]): this {
        if (!METHODS.includes(method)) throw new Error(`unsupported method ${method}`)
        this.express[method](path, recordRoute(joinPath(this.mountPath, path)), ...handlers)
        return this
    }

    private route(method: Method, path: string, op: Operation, handlers: RequestHandler[]): this {
        if (!METHODS.includes(method)) throw new Error(`unsupported method ${method}`)
        const full = joinPath(this.mountPath, path)
        this.doc.add(method, full, this.tag, op, this.options.errorSchema)
        this.express[method](path, recordRoute(full), ...handlers)
        return this
    }
}
