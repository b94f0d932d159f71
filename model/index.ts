export * from './generated'
