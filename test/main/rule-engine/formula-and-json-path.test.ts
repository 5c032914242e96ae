import { describe, expect, it } from 'vitest';
import { compileJsonPath } from '../../../main/rule-engine/json-path.ts';
import { compileMathExpression } from '../../../main/rule-engine/math-expression.ts';

const calc = (f: string, vars: Record<string, number> = {}) =>
  compileMathExpression(f, Object.keys(vars)).evaluate(vars);

describe("math node formulas (exp4j's language)", () => {
  it('precedence, right-associative power above unary minus, implicit multiplication', () => {
    expect(calc('2 + 3 * 4')).toBe(14);
    expect(calc('2 ^ 3 ^ 2')).toBe(512);
    expect(calc('-2 ^ 2')).toBe(-4);
    expect(calc('2x + 1', { x: 3 })).toBe(7);
    expect(calc('3(x + 1)', { x: 1 })).toBe(6);
    expect(calc('(x)(y)', { x: 2, y: 5 })).toBe(10);
    expect(calc('10 % 4')).toBe(2);
    expect(calc('-x', { x: 3 })).toBe(-3);
  });

  it('functions and constants', () => {
    expect(calc('sqrt(16) + abs(-2) + pow(2, 3)')).toBe(14);
    expect(calc('logab(2, 8)')).toBeCloseTo(3);
    expect(calc('ln(e)')).toBeCloseTo(1);
    expect(calc('lg(1000)')).toBeCloseTo(3);
    expect(calc('sin(pi / 2)')).toBeCloseTo(1);
    expect(calc('signum(-4) * floor(2.7) + ceil(0.2)')).toBe(-1);
  });

  it('refuses what it cannot parse, naming it; division by zero fails at run time', () => {
    expect(() => compileMathExpression('x + y', ['x'])).toThrow(/Unknown function or variable 'y'/);
    expect(() => compileMathExpression('(1 + 2', [])).toThrow(/Expected '\)'/);
    expect(() => compileMathExpression('1 $ 2', [])).toThrow(/Unknown character '\$'/);
    expect(() => compileMathExpression('pow(2)', [])).toThrow(/takes 2 argument/);
    expect(() => compileMathExpression('', [])).toThrow(/empty/);
    expect(() => calc('1 / x', { x: 0 })).toThrow(/Division by zero!/);
  });
});

describe('JSONPath (Jayway results)', () => {
  const doc = {
    store: {
      book: [
        { title: 'A', price: 8, isbn: 'x' },
        { title: 'B', price: 12 },
        { title: 'C', price: 22, isbn: 'y' },
      ],
      bicycle: { color: 'red', price: 19 },
    },
  };
  const read = (p: string) => compileJsonPath(p).read(doc);

  it('definite paths give the value', () => {
    expect(read('$.store.bicycle.color')).toBe('red');
    expect(read("$['store']['book'][1].title")).toBe('B');
    expect(read('$.store.book[-1].title')).toBe('C');
    expect(read('$.store.book.length()')).toBe(3);
  });

  it('indefinite paths give lists: wildcards, deep scan, slices, unions, filters', () => {
    expect(read('$.store.book[*].title')).toEqual(['A', 'B', 'C']);
    expect(read('$..price')).toEqual([8, 12, 22, 19]);
    expect(read('$.store.book[0:2].title')).toEqual(['A', 'B']);
    expect(read('$.store.book[0,2].title')).toEqual(['A', 'C']);
    expect(read('$.store.book[?(@.price < 10 || @.price > 20)].title')).toEqual(['A', 'C']);
    expect(read('$.store.book[?(@.isbn)].title')).toEqual(['A', 'C']);
    expect(read("$.store.book[?(@.title == 'B')].price")).toEqual([12]);
    expect(read('$.store.book[?(@.missing)].title')).toEqual([]);
  });

  it('a missing definite path and a broken expression fail', () => {
    expect(() => read('$.store.car')).toThrow(/No results for path/);
    expect(() => compileJsonPath('store')).toThrow(/must start with '\$'/);
    expect(() => compileJsonPath('$.a[')).toThrow();
  });
});
