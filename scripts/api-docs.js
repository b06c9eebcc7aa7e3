/**
 * Writes docs/api.md, the API reference, from the JSDoc of the public API:
 * the entry points of package.json's "exports" (`pagediet`: src/index.js,
 * `pagediet/vite`, `pagediet/eleventy`, `pagediet/astro`: src/plugins/) and the pass
 * contract (src/build/pass.js).
 * The sources are read with the TypeScript compiler (the project's
 * tsconfig.json): each exported function with its signature, description,
 * parameters (types and defaults), return value and examples, and every
 * type they take or return, one level deep.
 *
 *   node scripts/api-docs.js           # writes docs/api.md
 *   node scripts/api-docs.js --check   # exit code 1 when docs/api.md is stale
 *
 * The output depends on the sources only (no dates, no absolute paths, a
 * fixed order), so --check can hold it in CI.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = 'docs/api.md';
/** The pass contract: not an entry point of the package, but the interface a pass implements. */
const PASS_CONTRACT = 'src/build/pass.js';

/**
 * @typedef {{ title: string, file: string, importAs: string | null }} Module
 * @typedef {{ symbol: ts.Symbol, declaration: ts.JSDocTypedefTag | ts.JSDocCallbackTag, depth: number }} DocumentedType
 */

/** @param {string} file a path from the root @returns {string} */
const rel = (file) => path.relative(ROOT, file).split(path.sep).join('/');

/** The package's entry points, from package.json "exports", then the pass contract. @returns {Module[]} */
function modules() {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  /** @type {Module[]} */
  const list = [];
  for (const [key, target] of Object.entries(pkg.exports ?? { '.': pkg.main })) {
    const file = typeof target === 'string' ? target : target?.default;
    if (typeof file !== 'string' || !file.endsWith('.js')) continue;
    const importAs = key === '.' ? pkg.name : `${pkg.name}/${key.replace(/^\.\//, '')}`;
    list.push({ title: importAs, file: path.posix.normalize(file), importAs });
  }
  list.push({ title: 'The pass contract', file: PASS_CONTRACT, importAs: null });
  return list;
}

const MODULES = modules();

/** The project's compiler options, checking JavaScript as `npx tsc -p .` does. */
function program() {
  const config = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  return ts.createProgram(MODULES.map((m) => path.join(ROOT, m.file)), { ...parsed.options, noEmit: true });
}

const PROGRAM = program();
const checker = PROGRAM.getTypeChecker();

/** @param {string} file @returns {ts.SourceFile} */
function sourceFile(file) {
  const sf = PROGRAM.getSourceFile(path.join(ROOT, file));
  if (!sf) throw new Error(`${file}: not in the program`);
  return sf;
}

// ---- text ----

/** A JSDoc comment's text ('' when none). @param {string | ts.NodeArray<ts.JSDocComment> | undefined} comment */
const commentText = (comment) => (ts.getTextOfJSDocComment(comment) ?? '').trim();

/** Prose with `<` outside code spans written as `&lt;`, so markdown shows `<style>` instead of taking it for HTML. @param {string} text */
const prose = (text) => text.split(/(`[^`]*`)/).map((part, i) => (i % 2 ? part : part.replace(/</g, '&lt;'))).join('');

/** One line, for a table cell. @param {string} text */
const cell = (text) => prose(text.replace(/\s+/g, ' ').trim()).replace(/\|/g, '\\|');

/** A type as written in the source, import('...') prefixes dropped. @param {string} text */
const typeText = (text) => text.replace(/import\(\s*['"][^'"]+['"]\s*\)\./g, '').replace(/\s+/g, ' ').trim();

/** A type in a table cell: code, with its pipes escaped. @param {string} text */
const typeCell = (text) => (text ? `\`${typeText(text).replace(/\|/g, '\\|')}\`` : '');

/**
 * A comment as markdown: prose as written, lines indented by two spaces or
 * more (the sources' examples) as a code block.
 * @param {string} text
 */
function markdown(text) {
  const out = [];
  let code = /** @type {string[] | null} */ (null);
  for (const line of text.split('\n')) {
    if (/^ {2,}\S/.test(line)) {
      (code ??= []).push(line);
      continue;
    }
    if (code && line.trim() === '') {
      code.push('');
      continue;
    }
    if (code) {
      out.push(...fence(code));
      code = null;
    }
    out.push(prose(line.trimEnd()));
  }
  if (code) out.push(...fence(code));
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trim();
}

/** @param {string[]} lines */
function fence(lines) {
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => /** @type {RegExpMatchArray} */ (l.match(/^ */))[0].length));
  return ['', '```js', ...lines.map((l) => l.slice(indent)), '```', ''];
}

/**
 * A description and the default it names, "(default X)" at its end or
 * "default: X" as all of it.
 * @param {string} text
 * @returns {{ text: string, fallback: string }}
 */
function splitDefault(text) {
  const whole = /^default:? (.+)$/s.exec(text);
  if (whole) return { text: '', fallback: whole[1].trim() };
  const tail = /\s*\(default:? ((?:[^()]|\([^()]*\))+)\)\s*$/.exec(text);
  if (tail) return { text: text.slice(0, tail.index).trim(), fallback: tail[1].trim() };
  return { text, fallback: '' };
}

/** GitHub's anchor for a heading. @param {string} heading */
const slug = (heading) => heading.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');

// ---- types ----

/** @type {Map<ts.Symbol, DocumentedType>} */
const documented = new Map();
/** @type {DocumentedType[]} */
const queue = [];

/**
 * The typedef a symbol stands for, through imports and aliases
 * (`@typedef {import('./x.js').T} T`); null for anything else (a class, a
 * value, a type from a package).
 * @param {ts.Symbol | undefined} symbol
 * @returns {{ symbol: ts.Symbol, declaration: ts.JSDocTypedefTag | ts.JSDocCallbackTag } | null}
 */
function typedefOf(symbol) {
  for (let i = 0; symbol && i < 10; i++) {
    if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const declaration = symbol.declarations?.[0];
    if (!declaration || !(ts.isJSDocTypedefTag(declaration) || ts.isJSDocCallbackTag(declaration))) return null;
    if (!rel(declaration.getSourceFile().fileName).startsWith('src/')) return null;
    const target = aliasTarget(declaration);
    if (!target) return { symbol, declaration };
    symbol = target;
  }
  return null;
}

/**
 * What a pure alias typedef names (`@typedef {import('./x.js').T} T`, `@typedef {T} U`), else null.
 * @param {ts.JSDocTypedefTag | ts.JSDocCallbackTag} declaration
 */
function aliasTarget(declaration) {
  if (!ts.isJSDocTypedefTag(declaration) || !declaration.typeExpression || !ts.isJSDocTypeExpression(declaration.typeExpression)) return undefined;
  const type = declaration.typeExpression.type;
  if (ts.isImportTypeNode(type) && type.qualifier && !type.typeArguments) return checker.getSymbolAtLocation(rightmost(type.qualifier));
  if (ts.isTypeReferenceNode(type) && !type.typeArguments) return checker.getSymbolAtLocation(rightmost(type.typeName));
  return undefined;
}

/** @param {ts.EntityName} name @returns {ts.Identifier} */
const rightmost = (name) => (ts.isIdentifier(name) ? name : name.right);

/**
 * The typedefs a type node names, in the order they appear.
 * @param {ts.Node | undefined} node
 * @param {ts.Symbol[]} [found]
 */
function referencedTypes(node, found = []) {
  if (!node) return found;
  /** @type {ts.Symbol | undefined} */
  let symbol;
  if (ts.isImportTypeNode(node) && node.qualifier) symbol = checker.getSymbolAtLocation(rightmost(node.qualifier));
  else if (ts.isTypeReferenceNode(node)) symbol = checker.getSymbolAtLocation(rightmost(node.typeName));
  const typedef = typedefOf(symbol);
  if (typedef && !found.includes(typedef.symbol)) found.push(typedef.symbol);
  ts.forEachChild(node, (child) => {
    referencedTypes(child, found);
  });
  return found;
}

/**
 * Queues the typedefs a type node names for the reference, and returns them.
 * @param {ts.Node | undefined} node
 * @param {number} depth 0 for the API's own types, 1 for the types they name
 */
function want(node, depth) {
  const symbols = referencedTypes(node);
  for (const symbol of symbols) queueType(symbol, depth);
  return symbols;
}

/** @param {ts.Symbol} symbol @param {number} depth */
function queueType(symbol, depth) {
  const typedef = typedefOf(symbol);
  if (!typedef || documented.has(typedef.symbol) || depth > 1) return;
  const entry = { symbol: typedef.symbol, declaration: typedef.declaration, depth };
  documented.set(typedef.symbol, entry);
  queue.push(entry);
}

/** The heading of a documented type (its name, and its file when two types share the name). @param {ts.Symbol} symbol */
function typeHeading(symbol) {
  const entry = /** @type {DocumentedType} */ (documented.get(symbol));
  const same = [...documented.values()].filter((e) => e.symbol.name === symbol.name);
  return same.length > 1 && same[0] !== entry ? `${symbol.name} (${rel(entry.declaration.getSourceFile().fileName)})` : symbol.name;
}

/** Links to documented types. @param {ts.Symbol[]} symbols */
function links(symbols) {
  return symbols.filter((s) => documented.has(s)).map((s) => `[${typeHeading(s)}](#${slug(typeHeading(s))})`).join(', ');
}

/**
 * A property of an object type: from its @property tag, a property signature, or the checker.
 * @param {ts.Symbol} property
 * @returns {{ name: string, type: string, typeNode: ts.Node | undefined, optional: boolean, text: string, fallback: string }}
 */
function propertyOf(property) {
  const declaration = property.declarations?.[0];
  /** @type {ts.Node | undefined} */
  let typeNode;
  let optional = (property.flags & ts.SymbolFlags.Optional) !== 0;
  if (declaration && ts.isJSDocPropertyLikeTag(declaration)) {
    typeNode = declaration.typeExpression?.type;
    optional ||= declaration.isBracketed;
  } else if (declaration && ts.isPropertySignature(declaration)) {
    typeNode = declaration.type;
    optional ||= Boolean(declaration.questionToken);
  }
  const type = typeNode ? typeNode.getText() : checker.typeToString(checker.getTypeOfSymbol(property), undefined, ts.TypeFormatFlags.NoTruncation);
  const { text, fallback } = splitDefault(ts.displayPartsToString(property.getDocumentationComment(checker)).trim());
  return { name: property.name, type, typeNode, optional, text, fallback };
}

/**
 * The markdown of one documented type.
 * @param {DocumentedType} entry
 */
function renderType(entry) {
  const { symbol, declaration } = entry;
  const lines = [`### ${typeHeading(symbol)}`, ''];
  const doc = declaration.parent;
  const own = commentText(declaration.comment);
  const block = ts.isJSDoc(doc) && (doc.tags ?? []).filter((t) => ts.isJSDocTypedefTag(t) || ts.isJSDocCallbackTag(t)).length === 1 ? commentText(doc.comment) : '';
  const description = [block, own].filter(Boolean).join('\n\n');
  if (description) lines.push(markdown(description), '');
  lines.push(`Declared in \`${rel(declaration.getSourceFile().fileName)}\`.`, '');
  const templates = ts.isJSDoc(doc) ? (doc.tags ?? []).filter((t) => ts.isJSDocTemplateTag(t) && t.pos < declaration.pos && !(doc.tags ?? []).some((o) => (ts.isJSDocTypedefTag(o) || ts.isJSDocCallbackTag(o)) && o !== declaration && o.pos > t.pos && o.pos < declaration.pos)) : [];
  for (const tag of /** @type {ts.JSDocTemplateTag[]} */ (templates)) {
    for (const parameter of tag.typeParameters) {
      const constraint = tag.constraint ? ` extends ${typeText(tag.constraint.type.getText())}` : '';
      const fallback = parameter.default ? ` = ${typeText(parameter.default.getText())}` : '';
      lines.push(`Type parameter: \`${parameter.name.text}${constraint}${fallback}\`${commentText(tag.comment) ? `: ${cell(commentText(tag.comment))}` : ''}.`, '');
    }
  }
  /** @type {ts.Symbol[]} */
  const named = [];
  const expression = declaration.typeExpression;
  let properties = /** @type {ts.Symbol[]} */ ([]);
  if (expression && ts.isJSDocTypeLiteral(expression)) {
    properties = (expression.jsDocPropertyTags ?? []).map((tag) => /** @type {ts.Symbol} */ (checker.getSymbolAtLocation(tag.name) ?? /** @type {any} */ (tag).symbol)).filter(Boolean);
  } else if (expression && ts.isJSDocTypeExpression(expression)) {
    const node = expression.type;
    const parameters = /** @type {ts.JSDocTemplateTag[]} */ (templates).flatMap((t) => t.typeParameters.map((p) => p.name.text));
    lines.push(`\`\`\`ts\ntype ${symbol.name}${parameters.length ? `<${parameters.join(', ')}>` : ''} = ${node.getText().replace(/\s+/g, ' ')}\n\`\`\``, '');
    named.push(...referencedTypes(node));
    /** @type {string[]} */
    const inherited = [];
    /** @type {ts.Symbol[]} */
    const linked = [];
    for (const part of ts.isIntersectionTypeNode(node) ? node.types : [node]) {
      const large = largeTypedef(part);
      if (large) {
        queueType(large.symbol, entry.depth);
        linked.push(large.symbol);
        inherited.push(`every property of [${typeHeading(large.symbol)}](#${slug(typeHeading(large.symbol))})${large.omitted.length ? ` but ${large.omitted.map((k) => `\`${k}\``).join(', ')}` : ''}`);
      } else if (ts.isIntersectionTypeNode(node) || isObjectMadeFromOthers(part)) {
        properties.push(...objectProperties(part));
      }
    }
    named.splice(0, named.length, ...named.filter((s) => !linked.includes(s)));
    if (inherited.length) lines.push(`${inherited.join('; ').replace(/^./, (c) => c.toUpperCase())}${properties.length ? '; and these:' : '.'}`, '');
  } else if (ts.isJSDocCallbackTag(declaration)) {
    lines.push(`\`\`\`ts\ntype ${symbol.name} = ${typeText(declaration.typeExpression.getText())}\n\`\`\``, '');
  }
  if (properties.length) {
    lines.push('| property | type | default | description |', '| --- | --- | --- | --- |');
    for (const property of properties) {
      const p = propertyOf(property);
      const names = entry.depth === 0 ? want(p.typeNode, 1) : referencedTypes(p.typeNode);
      for (const s of names) if (!named.includes(s)) named.push(s);
      lines.push(`| \`${p.name}\`${p.optional ? ' (optional)' : ''} | ${typeCell(p.type)} | ${defaultCell(p.fallback)} | ${cell(p.text)} |`);
    }
    lines.push('');
  }
  const seeAlso = links(named.filter((s) => s !== symbol));
  if (seeAlso) lines.push(`See ${seeAlso}.`, '');
  return lines.join('\n');
}

/**
 * The properties of an object type node (none for a union, a primitive or a function).
 * @param {ts.TypeNode} node
 */
function objectProperties(node) {
  const type = checker.getTypeFromTypeNode(node);
  if (type.isUnion() || type.flags & (ts.TypeFlags.StringLike | ts.TypeFlags.NumberLike | ts.TypeFlags.BooleanLike | ts.TypeFlags.Literal) || type.getCallSignatures().length) return [];
  return checker.getPropertiesOfType(type);
}

/** How many properties make a type worth its own section rather than a copy of its table. */
const LARGE = 8;

/**
 * A part of a type that names a typedef documented on its own, or a large
 * one (`T`, `T<A>`, `Omit<T, 'a' | 'b'>`): its properties are listed once,
 * in its own section, and linked from here.
 * @param {ts.TypeNode} part
 * @returns {{ symbol: ts.Symbol, omitted: string[] } | null}
 */
function largeTypedef(part) {
  let target = part;
  /** @type {string[]} */
  let omitted = [];
  if (ts.isTypeReferenceNode(part) && rightmost(part.typeName).text === 'Omit' && part.typeArguments?.length === 2) {
    target = part.typeArguments[0];
    const keys = part.typeArguments[1];
    omitted = (ts.isUnionTypeNode(keys) ? [...keys.types] : [keys]).map((k) => (ts.isLiteralTypeNode(k) && ts.isStringLiteral(k.literal) ? k.literal.text : k.getText()));
  }
  const name = ts.isImportTypeNode(target) && target.qualifier ? rightmost(target.qualifier) : ts.isTypeReferenceNode(target) ? rightmost(target.typeName) : null;
  const typedef = name ? typedefOf(checker.getSymbolAtLocation(name)) : null;
  if (!typedef || (!documented.has(typedef.symbol) && objectProperties(target).length <= LARGE)) return null;
  return { symbol: typedef.symbol, omitted };
}

/** A default in a table cell: code when it is a value, words when it says one. @param {string} text */
function defaultCell(text) {
  if (!text) return '';
  return /^(?:[-\d"'[{]|true$|false$|null$|`)/.test(text) ? typeCell(text.replace(/`/g, '')) : cell(text);
}

/**
 * Whether a typedef's type is an object made from others (Omit<...>, a
 * mapped type, a reference to another object type), whose properties are
 * worth listing.
 * @param {ts.TypeNode} node
 */
function isObjectMadeFromOthers(node) {
  return ts.isTypeReferenceNode(node) || ts.isImportTypeNode(node) || ts.isMappedTypeNode(node) || ts.isTypeLiteralNode(node);
}

// ---- functions ----

/**
 * The markdown of one exported function.
 * @param {ts.FunctionDeclaration} fn
 * @param {string} name the name it is imported by ('default' for a default export)
 * @param {Module} module
 */
function renderFunction(fn, name, module) {
  const own = fn.name?.text ?? 'default';
  const isDefault = name === 'default';
  const symbol = fn.name ? checker.getSymbolAtLocation(fn.name) : undefined;
  const description = symbol ? ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim() : '';
  const params = fn.parameters.map((parameter) => {
    const tag = ts.getJSDocParameterTags(parameter)[0];
    const typeNode = tag?.typeExpression?.type ?? parameter.type;
    const type = typeNode ? typeNode.getText() : checker.typeToString(checker.getTypeAtLocation(parameter));
    const optional = Boolean(parameter.initializer || parameter.questionToken || tag?.isBracketed || (typeNode && ts.isJSDocOptionalType(typeNode)));
    const { text, fallback } = splitDefault(commentText(tag?.comment));
    const bracketDefault = tag ? /^@param\s+(?:\{[^}]*\}\s*)?\[[^=\]]+=([^\]]+)\]/.exec(tag.getText())?.[1]?.trim() : undefined;
    return { name: parameter.name.getText(), type, typeNode, optional, text, fallback: parameter.initializer?.getText() ?? bracketDefault ?? fallback };
  });
  const returnTag = ts.getJSDocReturnTag(fn);
  const signature = checker.getSignatureFromDeclaration(fn);
  const returnType = returnTag?.typeExpression?.type.getText()
    ?? (signature ? checker.typeToString(checker.getReturnTypeOfSignature(signature), fn, ts.TypeFormatFlags.NoTruncation) : 'void');
  const examples = ts.getJSDocTags(fn).filter((t) => t.tagName.text === 'example').map((t) => commentText(t.comment));

  const callName = isDefault ? own : name;
  const heading = `### ${callName}(${params.map((p) => (p.optional ? `${p.name}?` : p.name)).join(', ')})`;
  const lines = [heading, ''];
  if (isDefault) lines.push(`The default export of \`${module.importAs ?? module.file}\`.`, '');
  lines.push('```ts', `function ${callName}(${params.map((p) => `${p.name}${p.optional ? '?' : ''}: ${typeText(p.type)}`).join(', ')}): ${typeText(returnType)}`, '```', '');
  if (description) lines.push(markdown(description), '');
  /** @type {ts.Symbol[]} */
  const named = [];
  if (params.length) {
    lines.push('| parameter | type | default | description |', '| --- | --- | --- | --- |');
    for (const p of params) {
      for (const s of want(p.typeNode, 0)) if (!named.includes(s)) named.push(s);
      lines.push(`| \`${p.name}\`${p.optional ? ' (optional)' : ''} | ${typeCell(p.type)} | ${defaultCell(p.fallback)} | ${cell(p.text)} |`);
    }
    lines.push('');
  }
  for (const s of want(returnTag?.typeExpression?.type, 0)) if (!named.includes(s)) named.push(s);
  const returns = commentText(returnTag?.comment);
  const returnsWhat = typeText(returnType).length > 60 ? 'the object in the signature above' : typeCell(returnType);
  lines.push(`Returns ${returnsWhat}${returns ? `: ${cell(returns)}` : '.'}`, '');
  for (const example of examples) lines.push('Example:', '', '```js', example, '```', '');
  const seeAlso = links(named);
  if (seeAlso) lines.push(`See ${seeAlso}.`, '');
  return lines.join('\n');
}

/**
 * A module's own comment: the first JSDoc block of the file, when it
 * carries no tags. It is parsed on its own (a declaration keeps only the
 * JSDoc block nearest to it).
 * @param {ts.SourceFile} sf
 */
function moduleComment(sf) {
  const range = ts.getLeadingCommentRanges(sf.text, 0)?.find((r) => sf.text.startsWith('/**', r.pos));
  if (!range) return '';
  const alone = ts.createSourceFile('comment.js', `${sf.text.slice(range.pos, range.end)}\nexport {};\n`, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const doc = ts.getJSDocCommentsAndTags(alone.statements[0]).find(ts.isJSDoc);
  return doc && !doc.tags?.length ? commentText(doc.comment) : '';
}

/**
 * The first sentence of a comment, for a summary table.
 * @param {string} text
 */
function firstSentence(text) {
  const flat = text.split(/\n\s*\n/)[0].replace(/\s+/g, ' ').trim();
  const end = /[.:](?=\s|$)/.exec(flat);
  return end ? flat.slice(0, end.index + 1).replace(/:$/, '.') : flat;
}

/** What kind of value a declaration is. @param {ts.Declaration | undefined} d */
function kindOf(d) {
  if (!d) return 'value';
  if (ts.isFunctionDeclaration(d)) return 'function';
  if (ts.isClassDeclaration(d)) return 'class';
  if (ts.isVariableDeclaration(d)) return 'constant';
  return 'value';
}

/**
 * The markdown of one module: its comment, its exported functions in
 * source order, the values it re-exports, and (for the pass contract) its types.
 * @param {Module} module
 */
function renderModule(module) {
  const sf = sourceFile(module.file);
  const lines = [`## ${module.importAs ? `\`${module.importAs}\`` : module.title} (\`${module.file}\`)`, ''];
  const comment = moduleComment(sf);
  if (comment) lines.push(markdown(comment), '');
  /** @type {string[]} */
  const reexports = [];
  for (const statement of sf.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.body && ts.getCombinedModifierFlags(statement) & ts.ModifierFlags.Export) {
      const isDefault = (ts.getCombinedModifierFlags(statement) & ts.ModifierFlags.Default) !== 0;
      lines.push(renderFunction(statement, isDefault ? 'default' : /** @type {ts.Identifier} */ (statement.name).text, module));
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && statement.exportClause && ts.isNamedExports(statement.exportClause) && !statement.isTypeOnly) {
      const from = /** @type {ts.StringLiteral} */ (statement.moduleSpecifier).text;
      for (const element of statement.exportClause.elements) {
        const local = checker.getSymbolAtLocation(element.name);
        const target = local && local.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(local) : local;
        const declaration = target?.valueDeclaration ?? target?.declarations?.[0];
        const summary = target ? firstSentence(ts.displayPartsToString(target.getDocumentationComment(checker))) : '';
        const file = declaration ? rel(declaration.getSourceFile().fileName) : path.posix.join(path.posix.dirname(module.file), from);
        reexports.push(`| \`${element.name.text}\` | ${kindOf(declaration)} | \`${file}\` | ${cell(summary)} |`);
      }
    }
  }
  if (reexports.length) {
    lines.push(`### Also exported`, '', `The building blocks behind these functions, exported by \`${module.importAs}\` as they are; each file's JSDoc says more.`, '', '| name | kind | from | what it is |', '| --- | --- | --- | --- |', ...reexports, '');
  }
  // The module's own types: the typedefs it exports (pure aliases of other files' types left out).
  const moduleSymbol = checker.getSymbolAtLocation(sf);
  const own = moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : [];
  for (const symbol of own) {
    const declaration = symbol.declarations?.[0];
    if (declaration && (ts.isJSDocTypedefTag(declaration) || ts.isJSDocCallbackTag(declaration)) && !aliasTarget(declaration) && declaration.getSourceFile() === sf) queueType(symbol, 0);
  }
  return lines.join('\n');
}

// ---- the page ----

function render() {
  const moduleParts = MODULES.map(renderModule);
  // Types are rendered in the order they were first named; rendering a type may name more (one level deep).
  /** @type {Map<string, string[]>} */
  const byFile = new Map();
  for (let i = 0; i < queue.length; i++) {
    const entry = queue[i];
    const file = rel(entry.declaration.getSourceFile().fileName);
    const part = renderType(entry);
    byFile.set(file, [...(byFile.get(file) ?? []), part]);
  }
  const sections = MODULES.map((module, i) => {
    const types = byFile.get(module.file) ?? [];
    byFile.delete(module.file);
    return [moduleParts[i], ...types].join('\n');
  });
  const others = [...byFile.entries()].flatMap(([, parts]) => parts);
  const toc = [
    ...MODULES.map((m) => `- [${m.importAs ? `\`${m.importAs}\`` : m.title}](#${slug(`${m.importAs ?? m.title} (${m.file})`)})`),
    ...(others.length ? ['- [Types](#types)'] : []),
  ];
  const page = [
    '# API reference',
    '',
    '<!-- Generated by `node scripts/api-docs.js` from the JSDoc of the sources: do not edit. `node scripts/api-docs.js --check` fails when it is stale. -->',
    '',
    'The functions and types of pagediet\'s public API, from the JSDoc of the sources: the package\'s entry points (package.json `exports`) and the contract a pass implements. How the parts fit together: [architecture.md](architecture.md); every build option in one table: the [README](../README.md#usage).',
    '',
    ...toc,
    '',
    ...sections,
    ...(others.length ? ['## Types', '', 'The types the functions above take and return, and the types those name.', '', ...others] : []),
  ];
  return `${page.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}

const text = render();
const target = path.join(ROOT, OUT);
if (process.argv.includes('--check')) {
  const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
  if (current !== text) {
    console.error(`${OUT} is stale: run node scripts/api-docs.js`);
    process.exit(1);
  }
  console.log(`${OUT} is up to date`);
} else {
  fs.writeFileSync(target, text);
  console.log(`wrote ${OUT}`);
}
