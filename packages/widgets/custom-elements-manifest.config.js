// @ts-check
/**
 * The custom elements manifest (`dist/custom-elements.json`, the package's `customElements`):
 * `cem analyze` reads the components' JSDoc (`@csspart`, `@cssproperty`, `@event`) and
 * Lit's `static properties` (attributes, properties, with the TSDoc of their `declare`d fields).
 * Run by `npm run build -w @resale/widgets` after Vite (which empties `dist/`), and by
 * `src/manifest.test.ts`, which checks each component's .md against it.
 */

/** @typedef {import('@custom-elements-manifest/analyzer').Plugin} Plugin */
/** @typedef {import('typescript')} TS */

/**
 * Our elements are defined with `ResaleElement.define(tag)` (in `src/index.ts` and
 * `src/seat-map.ts`: a tag already taken is left alone), which the analyzer does not know: it
 * links a class to its tag only through `customElements.define(tag, Class)`. This records
 * `Class.define('tag')` the same way, so every element gets its `tagName` from the call that
 * really defines it. It also drops the definition the core reads into `define` itself
 * (`customElements.define(tag, ctor)`, with variables: a tag named "tag").
 * @returns {Plugin}
 */
function resaleDefineCalls() {
  return {
    name: 'resale-define-calls',
    analyzePhase({ ts, node, moduleDoc }) {
      const t = /** @type {TS} */ (ts);
      if (!t.isCallExpression(node) || !t.isPropertyAccessExpression(node.expression)) return;
      const { expression: target, name } = node.expression;
      const [tag] = node.arguments;
      if (name.text !== 'define' || !t.isIdentifier(target) || !tag || !t.isStringLiteral(tag)) return;
      // The class is imported into the defining module: name its own module, as the core does.
      const imported = node.getSourceFile().statements.find(
        (s) => t.isImportDeclaration(s) && s.importClause?.namedBindings && t.isNamedImports(s.importClause.namedBindings) && s.importClause.namedBindings.elements.some((e) => e.name.text === target.text),
      );
      const specifier = imported && t.isImportDeclaration(imported) && t.isStringLiteral(imported.moduleSpecifier) ? imported.moduleSpecifier.text : undefined;
      const module = specifier ? new URL(specifier.replace(/\.js$/, '.ts'), `file:///${moduleDoc.path}`).pathname.slice(1) : moduleDoc.path;
      moduleDoc.exports = [...(moduleDoc.exports ?? []), { kind: 'custom-element-definition', name: tag.text, declaration: { name: target.text, module } }];
    },
    packageLinkPhase({ customElementsManifest }) {
      const classes = new Set(customElementsManifest.modules.flatMap((m) => m.declarations ?? []).filter((d) => d.kind === 'class').map((d) => d.name));
      for (const module of customElementsManifest.modules) {
        module.exports = module.exports?.filter((e) => e.kind !== 'custom-element-definition' || classes.has(e.declaration.name));
      }
    },
  };
}

/**
 * Lit's `state: true` (internal reactive state) implies `attribute: false`, but the analyzer's Lit
 * support lists such properties as attributes (open-wc/custom-elements-manifest#294). This reads
 * each class's `static properties` and drops the attributes of its state properties.
 * @returns {Plugin}
 */
function litStateIsNoAttribute() {
  return {
    name: 'resale-lit-state',
    analyzePhase({ ts, node, moduleDoc }) {
      const t = /** @type {TS} */ (ts);
      if (!t.isClassDeclaration(node) || !node.name) return;
      const properties = node.members.find((m) => t.isPropertyDeclaration(m) && m.name.getText() === 'properties' && m.initializer && t.isObjectLiteralExpression(m.initializer));
      const object = properties && t.isPropertyDeclaration(properties) ? properties.initializer : undefined;
      if (!object || !t.isObjectLiteralExpression(object)) return;
      const state = new Set(
        object.properties
          .filter((p) => t.isPropertyAssignment(p) && t.isObjectLiteralExpression(p.initializer) && p.initializer.properties.some((o) => t.isPropertyAssignment(o) && o.name.getText() === 'state' && o.initializer.kind === t.SyntaxKind.TrueKeyword))
          .map((p) => p.name?.getText()),
      );
      const declaration = moduleDoc.declarations?.find((d) => d.name === node.name?.text);
      if (declaration?.kind === 'class' && declaration.attributes) declaration.attributes = declaration.attributes.filter((a) => !a.fieldName || !state.has(a.fieldName));
    },
  };
}

/**
 * Our event classes carry their name (`static readonly eventName = 'resale-error'`). The analyzer
 * finds `dispatchEvent(new ResaleErrorEvent(…))` but cannot name it, so it lists a nameless event
 * beside the JSDoc's `@event resale-error`. This names those events from the classes and merges
 * them with the JSDoc's, so each event is listed once, with its description and its type (also
 * for events the analyzer cannot see dispatched, such as `resale-cta-click` from `renderCta`).
 * @returns {Plugin}
 */
function namedEventClasses() {
  /** @type {Map<string, string>} event name → class name */
  const classes = new Map();
  return {
    name: 'resale-event-classes',
    collectPhase({ ts, node }) {
      const t = /** @type {TS} */ (ts);
      if (!t.isClassDeclaration(node) || !node.name) return;
      for (const member of node.members) {
        const isStatic = t.canHaveModifiers(member) && t.getModifiers(member)?.some((m) => m.kind === t.SyntaxKind.StaticKeyword);
        if (isStatic && t.isPropertyDeclaration(member) && member.name.getText() === 'eventName' && member.initializer && t.isStringLiteral(member.initializer)) {
          classes.set(member.initializer.text, node.name.text);
        }
      }
    },
    packageLinkPhase({ customElementsManifest }) {
      const byClass = new Map([...classes].map(([event, klass]) => [klass, event]));
      for (const module of customElementsManifest.modules) {
        for (const declaration of module.declarations ?? []) {
          if (declaration.kind !== 'class' || !declaration.events) continue;
          /** @type {Map<string, import('custom-elements-manifest/schema').Event>} */
          const merged = new Map();
          for (const event of declaration.events) {
            const name = event.name || byClass.get(event.type?.text ?? '');
            if (!name) continue;
            const klass = classes.get(name);
            merged.set(name, { ...merged.get(name), ...event, name, ...(klass ? { type: { text: klass } } : {}), description: event.description || merged.get(name)?.description || '' });
          }
          declaration.events = [...merged.values()];
        }
      }
    },
  };
}

/**
 * The analyzer names modules by their source (`src/…/x.ts`); the package ships `dist/esm/…/x.js`
 * (what `exports` points at), so tools that import a declaration's module find a real file.
 * @returns {Plugin}
 */
function shippedPaths() {
  /** @param {unknown} value */
  const rewrite = (value) => {
    if (Array.isArray(value)) value.forEach(rewrite);
    else if (value && typeof value === 'object') {
      const record = /** @type {Record<string, unknown>} */ (value);
      for (const [key, v] of Object.entries(record)) {
        if ((key === 'path' || key === 'module') && typeof v === 'string' && v.startsWith('src/')) record[key] = `dist/esm/${v.slice(4).replace(/\.ts$/, '.js')}`;
        else rewrite(v);
      }
    }
  };
  return {
    name: 'resale-shipped-paths',
    packageLinkPhase({ customElementsManifest }) {
      rewrite(customElementsManifest.modules);
    },
  };
}

// Not typed as the analyzer's `Config`: it declares `plugins` as factories, and the CLI wants their results.
export default {
  globs: ['src/**/*.ts'],
  // What the package does not ship (tsconfig.build.json leaves the same files out).
  exclude: ['src/**/*.test.ts', 'src/**/*.fixtures.ts', 'src/internal/test-utils.ts', 'src/internal/types.conformance.ts'],
  outdir: 'dist',
  litelement: true,
  // package.json names the manifest itself: the analyzer would rewrite the whole file on each build.
  packagejson: false,
  quiet: true,
  plugins: [resaleDefineCalls(), litStateIsNoAttribute(), namedEventClasses(), shippedPaths()],
};
