// @ts-check
/**
 * Forbids the synchronous terminal calls of drizzle's SQLite query builders and prepared
 * statements (`.get()`, `.all()`, `.run()`, `.values()`, `.sync()`) and of better-sqlite3
 * (`prepare`, `exec`, `pragma`, statements' `get`/`all`/`run`/`iterate`): code outside the
 * data layer awaits its queries (`await tx.select()…`), which both SQLite and PostgreSQL run.
 * The receiver's type decides, so `c.get('auth')`, `map.get(k)` or `headers.get(…)` pass.
 */
const TERMINALS = new Set(['get', 'all', 'run', 'values', 'sync', 'iterate', 'exec', 'pragma', 'prepare', 'transaction']);
const DIALECT_SOURCES = [/[\\/]drizzle-orm[\\/]sqlite-core[\\/]/, /[\\/]drizzle-orm[\\/]better-sqlite3[\\/]/, /[\\/]@types[\\/]better-sqlite3[\\/]/];

/** @type {import('eslint').Rule.RuleModule} */
export default {
  meta: {
    type: 'problem',
    docs: { description: 'No synchronous SQLite query calls outside the data layer (src/db/, *.table.ts, *.sqlite.ts)' },
    messages: {
      sync: '`.{{name}}()` runs a SQLite statement synchronously: await the query instead (`await q`, `(await q.limit(1))[0]`), or move dialect-specific code into src/db/ or a *.sqlite.ts seam.',
    },
    schema: [],
  },
  create(context) {
    const services = context.sourceCode.parserServices;
    if (!services?.program || !services.esTreeNodeToTSNodeMap) throw new Error('no-sync-database-call needs typed linting (parserOptions.projectService)');
    const checker = services.program.getTypeChecker();
    /** @param {import('typescript').Symbol | undefined} symbol */
    const declaredByDialect = (symbol) => (symbol?.getDeclarations() ?? []).some((d) => DIALECT_SOURCES.some((re) => re.test(d.getSourceFile().fileName)));
    return {
      /** @param {any} node */
      CallExpression(node) {
        const callee = node.callee;
        if (callee.type !== 'MemberExpression' || callee.computed || callee.property.type !== 'Identifier') return;
        const name = callee.property.name;
        if (!TERMINALS.has(name)) return;
        // The method called, wherever its type came from (drizzle's builders reach us through
        // mapped types such as Omit<…>, whose properties keep the original declarations).
        const symbol = checker.getSymbolAtLocation(services.esTreeNodeToTSNodeMap.get(callee.property));
        if (!declaredByDialect(symbol)) return;
        // `.values(rows)` of an insert is its VALUES clause, not a terminal.
        if (name === 'values' && node.arguments.length > 0 && /Insert/.test(checker.getTypeAtLocation(services.esTreeNodeToTSNodeMap.get(callee.object)).getSymbol()?.getName() ?? '')) return;
        context.report({ node: callee.property, messageId: 'sync', data: { name } });
      },
    };
  },
};
