import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'

const FILE = path.resolve(__dirname, '../../docs/BENCHMARKS.md')

export function machine(): string {
    const cpu = os.cpus()[0]?.model ?? 'unknown CPU'
    return `${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}`
}

/**
 * Appends one run's figures to docs/BENCHMARKS.md, with the date and machine. A figure measured in
 * several variants is an array, one value per name in `columns`.
 */
export function appendBenchmark(
    title: string,
    figures: Record<string, string | number | (string | number)[]>,
    notes: string[],
    columns: string[] = ['value']
): void {
    if (!fs.existsSync(FILE)) {
        fs.mkdirSync(path.dirname(FILE), { recursive: true })
        fs.writeFileSync(FILE, '# Benchmarks\n\nFigures appended by `npm run bench:*`, newest last. Speed is measured here, never asserted in tests.\n')
    }
    const lines = [
        '',
        `## ${title}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
        '',
        `Machine: ${machine()}.`,
        '',
        `| figure | ${columns.join(' | ')} |`,
        `|---|${columns.map(() => '---|').join('')}`,
        ...Object.entries(figures).map(([k, v]) => `| ${k} | ${[v].flat().join(' | ')} |`),
        '',
        ...notes.map((n) => `- ${n}`),
        '',
    ]
    fs.appendFileSync(FILE, lines.join('\n'))
}
