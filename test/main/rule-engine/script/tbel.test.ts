import { afterAll, describe, expect, it } from 'vitest';
import { ScriptCompileError } from '../../../../main/rule-engine/script/script-compile-error.ts';
import { compileProgram } from '../../../../main/rule-engine/script/script-program.ts';
import { ScriptSandbox } from '../../../../main/rule-engine/script/script-sandbox.ts';

const sandbox = new ScriptSandbox({ workers: 1 });
afterAll(() => sandbox.close());

const ARGS = ['msg', 'metadata', 'msgType'];
function tbel(
  script: string,
  data: unknown = {},
  metadata: Record<string, string> = {},
  type = 'POST_TELEMETRY_REQUEST',
): Promise<unknown> {
  return sandbox.invoke(sandbox.load('TBEL', compileProgram('TBEL', script, ARGS)), data, metadata, type);
}

function refusal(script: string): { line: number; construct: string; message: string } {
  try {
    compileProgram('TBEL', script, ARGS);
  } catch (err) {
    expect(err).toBeInstanceOf(ScriptCompileError);
    const e = err as ScriptCompileError;
    return { line: e.line, construct: e.construct, message: e.message };
  }
  throw new Error('the script was accepted');
}

/** [script, expected result]: the examples of ThingsBoard's TBEL documentation (docs/user-guide/tbel). */
const DOC_EXAMPLES: [string, string, unknown, unknown?][] = [
  ['property expression', 'msg.temperature', 25, { temperature: 25 }],
  ['boolean expression', 'return msg.temperature > 10;', true, { temperature: 25 }],
  [
    'operator precedence',
    'return (msg.temperature > 10 && msg.temperature < 20) || (msg.humidity > 10 && msg.humidity < 60);',
    true,
    { temperature: 25, humidity: 50 },
  ],
  ['multiple statements, last without semicolon', 'var a = 2;\nvar b = 2;\nreturn a + b', 4],
  ['value coercion', 'return "123" == 123;', true],
  [
    'map operations',
    `var map = {"temperature": 42, "nested" : "508"};
map.temperature = 0;
var size = map.size();
map.humidity = 73;
map.put("humidity", 73);
map.putIfAbsent("temperature1", 73);
map.temperature = 73;
var put1 = map.put("temperature", 73);
var putIfAbsent1 = map.putIfAbsent("temperature", 73);
var replace = map.replace("temperature", 56);
var replace1 = map.replace("temperature", 56, 42);
var replace3 = map.replace("temperature", 48, 56);
map.remove("temperature");
var keys = map.keys();
var values = map.values();
map.sortByKey();
var sortedKeys = map.keys();
map.sortByValue();
var mapAdd = {"test": 12, "input" : {"http": 130}};
map.putAll(mapAdd);
return {size: size, put1: put1, putIfAbsent1: putIfAbsent1, replace: replace, replace1: replace1,
  replace3: replace3, keys: keys, values: values, sortedKeys: sortedKeys, map: map};`,
    {
      size: 2,
      put1: 73,
      putIfAbsent1: 73,
      replace: 73,
      replace1: true,
      replace3: false,
      keys: ['nested', 'humidity', 'temperature1'],
      values: ['508', 73, 73],
      sortedKeys: ['humidity', 'nested', 'temperature1'],
      map: { humidity: 73, temperature1: 73, nested: '508', test: 12, input: { http: 130 } },
    },
  ],
  [
    'map iteration with entrySet() and without',
    `var map = {"a": 1, "b": 2};
var s = "";
foreach(element : map.entrySet()){
  s = s + element.getKey() + element.value;
}
var sum = 0;
foreach (ValueType value : map) {
  sum += value;
}
return s + sum;`,
    'a1b23',
  ],
  [
    'null-safe access',
    'var map = {};\nif(map.?nonExistingKey.smth > 10){\n return 1;\n}\nreturn map.temperature != null;',
    false,
  ],
  [
    'list operations',
    `var list = ["A", "B", "C", "B", "C", "hello", 34567];
var listAdd = ["thigsboard", 4, 67];
var addAll = list.addAll(listAdd);
var addAllI = list.addAll(2, listAdd);
list.add(3, "thigsboard");
var push = list.push("thigsboard");
list.unshift("r");
var removeIndex2 = list.remove(2);
var removeValueC = list.remove("C");
var shift = list.shift();
var pop = list.pop();
var splice3 = list.splice(3);
var splice2 = list.splice(2, 2);
var splice1_4 = list.splice(1, 4, "start", 5, "end");
return [addAll, addAllI, push, removeIndex2, removeValueC, shift, pop, splice3.size(), splice2, splice1_4, list];`,
    [
      true,
      true,
      true,
      'B',
      true,
      'r',
      'thigsboard',
      9,
      ['thigsboard'],
      ['thigsboard'],
      ['A', 'start', 5, 'end'],
    ],
  ],
  [
    'list changes and copies',
    `var list = ["r", "start", 5, "end"];
var listAdd = ["thigsboard", 4, 67];
var set = list.set(3, "65");
list[1] = "98";
list[0] = 2096;
list.sort();
var asc = list.slice();
list.sort(false);
var desc = list.slice();
list.reverse();
var fill = list.fill(67).slice();
var fill4 = list.fill(4, 1).slice();
var fill4_6 = list.fill(2, 1, 4);
return [set, asc, desc, fill, fill4, fill4_6, list.toSorted(), list.toSorted(false), list.toReversed(),
  list.slice(3), list.slice(0, 2), list.with(1, 69), list.concat(listAdd), list.join(),
  list.toSpliced(1, 0, "Feb"), list.toSpliced(0, 2), list.toSpliced(2, 2), list.toSpliced(2, 4, "start", 5, "end"),
  list.length(), list.indexOf("B", 1), list.indexOf(2, 2), list.validateClazzInArrayIsOnlyNumber()];`,
    [
      'end',
      [5, '65', '98', 2096],
      [2096, '98', '65', 5],
      [67, 67, 67, 67],
      [67, 4, 4, 4],
      [67, 2, 2, 2],
      [2, 2, 2, 67],
      [67, 2, 2, 2],
      [2, 2, 2, 67],
      [2],
      [67, 2],
      [67, 69, 2, 2],
      [67, 2, 2, 2, 'thigsboard', 4, 67],
      '67,2,2,2',
      [67, 'Feb', 2, 2, 2],
      [2, 2],
      [67, 2],
      [67, 2, 'start', 5, 'end'],
      4,
      -1,
      2,
      true,
    ],
  ],
  [
    'for loop over list.size',
    'var list = ["A", "B", "C"];\nvar s = "";\nfor (var i =0; i < list.size; i++) {\n  s += list[i];\n}\nreturn s + list[0] + list.size();',
    'ABCA3',
  ],
  [
    'primitive arrays and functions',
    `var array = new int[3];
array[0] = 1;
array[1] = 2;
array[2] = 3;
var str = "My String";
var str0 = str[0];
function sum(list){
    var result = 0;
    for(var i = 0; i < list.length; i++){
        result += list[i];
    }
    return result;
};
var sum = sum(array);
return [str0, sum];`,
    ['M', 6],
  ],
  [
    'literals',
    'return [125, 0353, 0xAFF0, 10.503, 94.92d, 14.5f, \'This is also string literal\', "\\u0041\\73", nil == null, true, false];',
    [125, 235, 45040, 10.503, 94.92, 14.5, 'This is also string literal', 'A;', true, true, false],
  ],
  ['Math', 'return Math.sqrt(4);', 2],
  [
    'Integer.toString with a radix',
    'return [Integer.toString(0x1A, 16), Integer.toString(0x1A, 10), Integer.toString(0x1A, 8), Integer.toString(0x1A, 2), Integer.toString(-255, 16), Integer.toString(-255, 2)];',
    ['1a', '26', '32', '11010', '-ff', '-11111111'],
  ],
  [
    'java.util.Collections',
    'var list = ["A", "B", "C"];\njava.util.Collections.reverse(list);\nreturn list;',
    ['C', 'B', 'A'],
  ],
  [
    'JSON class',
    'var metadataStr = JSON.stringify(metadata);\nvar metadata = JSON.parse(metadataStr);\nreturn metadata.deviceName;',
    'A',
  ],
  [
    'if / else if / else',
    'var temperature = -1;\nif (temperature > 0) {\n   return "Greater than zero!";\n} else if (temperature == -1) {\n   return "Minus one!";\n} else {\n   return "Something else!";\n}',
    'Minus one!',
  ],
  ['ternary', 'var temperature = 5;\nreturn temperature > 0 ? "Yes" : "No";', 'Yes'],
  [
    'foreach over a list',
    'var numbers = [1, 2, 3];\nvar sum = 0;\nforeach (n : numbers) {\n   sum+=n;\n}\nreturn sum;',
    6,
  ],
  [
    'foreach over a string',
    'var str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";\nvar n = 0;\nforeach (c : str) {\n  n++;\n}\nreturn n;',
    26,
  ],
  ['for loop', 'var sum = 0;\nfor (var i =0; i < 100; i++) {\n   sum += i;\n}\nreturn sum;', 4950],
  [
    'do while, do until, while, until',
    'var x = 0;\ndo {\n  x++;\n}\nwhile (x < 3);\nvar y = 0;\ndo {\n  y++;\n}\nuntil (y == 4);\nvar z = 0;\nwhile (z < 5) {\n  z++;\n}\nuntil (z == 7) {\n  z++;\n}\nreturn [x, y, z];',
    [3, 4, 7],
  ],
  [
    'btoa / atob',
    'var encodedData = btoa("Hello, world");\nreturn [encodedData, atob(encodedData)];',
    ['SGVsbG8sIHdvcmxk', 'Hello, world'],
  ],
  ['toFixed', 'return [toFixed(0.345, 1), toFixed(0.345, 2)];', [0.3, 0.35]],
  [
    'stringToBytes',
    'var bytesStr = atob("eyJoZWxsbyI6ICJ3b3JsZCJ9");\nreturn [stringToBytes(bytesStr), stringToBytes("hello world", "UTF8")];',
    [
      [123, 34, 104, 101, 108, 108, 111, 34, 58, 32, 34, 119, 111, 114, 108, 100, 34, 125],
      [104, 101, 108, 108, 111, 32, 119, 111, 114, 108, 100],
    ],
  ],
  ['bytesToString', 'var bytes = [0x48,0x45,0x4C,0x4C,0x4F];\nreturn bytesToString(bytes);', 'HELLO'],
  [
    'decodeToJson',
    'var bytes = stringToBytes(atob("eyJoZWxsbyI6ICJ3b3JsZCJ9"));\nreturn decodeToJson(bytes);',
    { hello: 'world' },
  ],
  [
    'isBinary / isOctal / isDecimal / isHexadecimal',
    'return [isBinary("1100110"), isBinary("2100110"), isOctal("4567734"), isOctal("8100110"), isDecimal("4567039"), isDecimal("C100110"), isHexadecimal("F5D7039"), isHexadecimal("K100110")];',
    [2, -1, 8, -1, 10, -1, 16, -1],
  ],
  [
    'encodeURI / decodeURI',
    'var uriOriginal = "-_.!~*\'();/?:@&=+$,#ht://example.ж д a/path with spaces/?param1=Київ 1&param2=Україна2";\nvar e = encodeURI(uriOriginal);\nreturn [e, decodeURI(e) == uriOriginal];',
    [
      "-_.!~*'();/?:@&=+$,#ht://example.%D0%B6%20%D0%B4%20a/path%20with%20spaces/?param1=%D0%9A%D0%B8%D1%97%D0%B2%201&param2=%D0%A3%D0%BA%D1%80%D0%B0%D1%97%D0%BD%D0%B02",
      true,
    ],
  ],
  [
    'printUnsignedBytes',
    'return [printUnsignedBytes(hexToBytes("D8FF")), printUnsignedBytes(hexToBytes("FFD8"))];',
    [
      [216, 255],
      [255, 216],
    ],
  ],
  [
    'padStart / padEnd',
    "var fullNumber = \"203439900FFCD5581\";\nreturn [padStart(\"010011\", 8, '0'), padStart(\"1001010011\", 8, '0'), padStart(\"1001010011\", 16, '*'), padStart(fullNumber.substring(11), fullNumber.length(), '*'), padEnd(\"010011\", 8, '0'), padEnd(fullNumber.substring(0, 11), fullNumber.length(), '*')];",
    ['00010011', '1001010011', '******1001010011', '***********CD5581', '01001100', '203439900FF******'],
  ],
  [
    'intToHex / longToHex / floatToHex / doubleToHex',
    'return [intToHex(0x7FFFFFFF, true, true), intToHex(171, true, false), intToHex(0xABCDEF, false, true, 4), intToHex(0xABCD, false, false, 2), longToHex(0x7A12BCD3, true, true, 4), longToHex(0x7A12BCD3, false, false, 4), floatToHex(123456789.00), floatToHex(123456789.00, false), doubleToHex(1729.1729d), doubleToHex(1729.1729d, false)];',
    [
      '0x7FFFFFFF',
      'AB',
      '0xCDAB',
      'AB',
      '0xBCD3',
      '127A',
      '0x4CEB79A3',
      '0xA379EB4C',
      '0x409B04B10CB295EA',
      '0xEA95B20CB1049B40',
    ],
  ],
  [
    'intLongToRadixString',
    'return [intLongToRadixString(58, 2), intLongToRadixString(13158, 8), intLongToRadixString(-13158, 8), intLongToRadixString(-13158, 10), intLongToRadixString(13158, 16), intLongToRadixString(-13158, 16), intLongToRadixString(-13158, 16, true, true)];',
    ['00111010', '31546', '1777777777777777746232', '-13158', '3366', 'FFCC9A', '0xFFCC9A'],
  ],
  [
    'parseHexToInt / parseHexToFloat / parseHexToDouble',
    'return [parseHexToInt("BBAA"), parseHexToInt("BBAA", true), parseHexToInt("AABB", false), parseHexToInt("BBAA", false), toFixed(parseHexToFloat("41EA62CC"), 5), toFixed(parseHexToFloat("CC62EA41", false), 5), parseHexToDouble("409B04B10CB295EA"), parseHexToDouble("EA95B20CB1049B40", false), parseHexIntLongToFloat("0x0A", true), parseLittleEndianHexToInt("AABB"), parseBigEndianHexToInt("BBAA")];',
    [48042, 48042, 48042, 43707, 29.29824, 29.29824, 1729.1729, 1729.1729, 10, 48042, 48042],
  ],
  [
    'hexToBytes / bytesToHex',
    'return [hexToBytes("0x01752B0367FA000500010488FFFFFFFFFFFFFFFF33"), bytesToHex([0xBB, 0xAA]), bytesToHex([-69, 83])];',
    [[1, 117, 43, 3, 103, -6, 0, 5, 0, 1, 4, -120, -1, -1, -1, -1, -1, -1, -1, -1, 51], 'BBAA', 'BB53'],
  ],
  [
    'parseBytesToInt / parseBytesToFloat / parseBytesIntToFloat',
    `var bytes = [0xAA, 0xBB, 0xCC, 0xDD];
var floatValByte = [0x41, 0xEA, 0x62, 0xCC];
var intValByte = [0x00, 0x00, 0x00, 0x0A];
var byteAT101 = hexToBytes("0x01756403671B01048836BF7701F000090722050000");
return [parseBytesToInt(bytes, 0, 3), parseBytesToInt(bytes, 0, 3, true), parseBytesToInt(bytes, 0, 3, false),
  toFixed(parseBytesToFloat(floatValByte, 0), 5), toFixed(parseBytesToFloat(floatValByte, 0, 4, false) / 10000000, 5),
  parseBytesIntToFloat(intValByte, 3, 1, true), parseBytesIntToFloat(intValByte, 2, 2, false), parseBytesIntToFloat(intValByte, 0, 4, false),
  parseBytesIntToFloat(byteAT101, 9, 4, false) / 1000000, parseBytesIntToFloat(byteAT101, 13, 4, false) / 1000000];`,
    [11189196, 11189196, 13417386, 29.29824, -5.94844, 10, 2560, 167772160, 24.62495, 118.030576],
  ],
  [
    'parseBytesLongToDouble',
    'var b = hexToBytes("0x32D009423F23B300B0106E08D96B6C00");\nreturn [toFixed(parseBytesLongToDouble(b, 0, 8, false) / 1e15, 9), toFixed(parseBytesLongToDouble(b, 8, 8, false) / 1e15, 9)];',
    [50.422775429, 30.517877378],
  ],
  [
    'binary arrays',
    'var byteVal = 0x39;\nvar bytesVal = [0xCE, 0xB2];\nreturn [parseByteToBinaryArray(byteVal), parseByteToBinaryArray(byteVal, 3), parseByteToBinaryArray(byteVal, 8, false), parseByteToBinaryArray(byteVal, 5, false), parseBytesToBinaryArray(bytesVal), parseBytesToBinaryArray(bytesVal, 2), parseLongToBinaryArray(52914, 16), parseBinaryArrayToInt([1, 0, 0, 1, 1, 1, 1, 1]), parseBinaryArrayToInt([1, 0, 0, 1, 1, 1, 1, 1], 1, 7)];',
    [
      [0, 0, 1, 1, 1, 0, 0, 1],
      [0, 0, 1],
      [1, 0, 0, 1, 1, 1, 0, 0],
      [1, 0, 0, 1, 1],
      [1, 1, 0, 0, 1, 1, 1, 0, 1, 0, 1, 1, 0, 0, 1, 0],
      [1, 0],
      [1, 1, 0, 0, 1, 1, 1, 0, 1, 0, 1, 1, 0, 0, 1, 0],
      -97,
      31,
    ],
  ],
  [
    'parseInt / parseLong / parseFloat / parseDouble',
    'return [parseInt("0"), parseInt("473"), parseInt("+42"), parseInt("-0", 10), parseInt("-0xFF"), parseInt("-FF", 16), parseInt("1100110", 2), parseInt("2147483647", 10), parseInt("-2147483648", 10), parseInt("Kona", 27), parseLong("-0xFFFF"), parseLong("-FFFF", 16), parseLong("11001101100110", 2), parseLong("KonaLong", 27), parseFloat("4.2"), parseDouble("4.2")];',
    [
      0, 473, 42, 0, -255, -255, 102, 2147483647, -2147483648, 411787, -65535, -65535, 13158, 218840926543,
      4.2, 4.2,
    ],
  ],
  [
    'bitwise operations on booleans and numbers',
    'var x = true;\nvar y = false;\nvar i = 10;\nvar b = -14;\nreturn [x & y, x | y, x ^ y, x << y, x >> y, x >>> y, x & b, i | y, i >>> x];',
    [0, 1, 1, 1, 1, 1, 0, 10, 5],
  ],
  [
    'base64 helpers',
    'return [base64ToHex("Kkk="), bytesToBase64([42, 73]), base64ToBytes("Kkk="), base64ToBytesList("AQIDBAU=")];',
    ['2A49', 'Kkk=', [42, 73], [1, 2, 3, 4, 5]],
  ],
  [
    'Date',
    `var d = new Date("2024-01-01T10:00:00.00Z");
var out = [new Date("2023-08-06T04:04:05.123Z").toISOString(), d.toISOString()];
d.addYears(1); out.add(d.toISOString());
d.addYears(-2); out.add(d.toISOString());
d.addMonths(2); out.add(d.toISOString());
d.addMonths(-13); out.add(d.toISOString());
d.addWeeks(4); out.add(d.toISOString());
d.addDays(-50); out.add(d.toISOString());
d.addHours(23); out.add(d.toISOString());
d.addMinutes(59); out.add(d.toISOString());
d.addSeconds(-60); out.add(d.toISOString());
return out;`,
    [
      '2023-08-06T04:04:05.123Z',
      '2024-01-01T10:00:00Z',
      '2025-01-01T10:00:00Z',
      '2023-01-01T10:00:00Z',
      '2023-03-01T10:00:00Z',
      '2022-02-01T10:00:00Z',
      '2022-03-01T10:00:00Z',
      '2022-01-10T10:00:00Z',
      '2022-01-11T09:00:00Z',
      '2022-01-11T09:59:00Z',
      '2022-01-11T09:58:00Z',
    ],
  ],
];

const FLAT_INPUT = {
  key1: 'value1',
  key2: 12,
  key3: {
    key4: 'value4',
    key5: 34,
    key6: [{ key7: 'value7' }, { key8: 'value8' }, 'just_string_value_in_array', 56],
    key9: { key10: ['value10_1', 'value10_2', 'value10_3'] },
  },
  key_to_overwrite: 'root_value',
  key11: { key_to_overwrite: 'second_level_value' },
};

describe('TBEL: the examples of ThingsBoard’s documentation', () => {
  for (const [title, script, expected, data] of DOC_EXAMPLES) {
    it(title, async () => {
      await expect(tbel(script, data ?? {}, { deviceName: 'A' })).resolves.toEqual(expected);
    });
  }

  it('toFlatMap, with and without paths and exclusions', async () => {
    await expect(tbel('return toFlatMap(msg);', FLAT_INPUT)).resolves.toEqual({
      key1: 'value1',
      key2: 12,
      'key3.key4': 'value4',
      'key3.key5': 34,
      'key3.key6.0.key7': 'value7',
      'key3.key6.1.key8': 'value8',
      'key3.key6.2': 'just_string_value_in_array',
      'key3.key6.3': 56,
      'key3.key9.key10.0': 'value10_1',
      'key3.key9.key10.1': 'value10_2',
      'key3.key9.key10.2': 'value10_3',
      key_to_overwrite: 'root_value',
      'key11.key_to_overwrite': 'second_level_value',
    });
    await expect(tbel('return toFlatMap(msg, false);', FLAT_INPUT)).resolves.toEqual({
      key1: 'value1',
      key2: 12,
      key4: 'value4',
      key5: 34,
      key7: 'value7',
      key8: 'value8',
      'key6.2': 'just_string_value_in_array',
      'key6.3': 56,
      'key10.0': 'value10_1',
      'key10.1': 'value10_2',
      'key10.2': 'value10_3',
      key_to_overwrite: 'second_level_value',
    });
    await expect(tbel('return toFlatMap(msg, ["key1", "key3"]);', FLAT_INPUT)).resolves.toEqual({
      key2: 12,
      key_to_overwrite: 'root_value',
      'key11.key_to_overwrite': 'second_level_value',
    });
  });

  it('raiseError fails the script with the message', async () => {
    await expect(
      tbel(
        'var value = 4;\nvar message = "frequency_weighting_type must be 0, 1 or 2. A value of " + value + " is invalid.";\nreturn raiseError(message);',
      ),
    ).rejects.toThrow('frequency_weighting_type must be 0, 1 or 2. A value of 4 is invalid. (line 3)');
  });

  it('unmodifiable maps and lists refuse changes', async () => {
    await expect(
      tbel(
        'var original = {};\noriginal.humidity = 73;\nvar unmodifiable = original.toUnmodifiable();\nunmodifiable.put("temperature1", 96);\nreturn unmodifiable;',
      ),
    ).rejects.toThrow('Map is unmodifiable (line 4)');
    await expect(
      tbel(
        'var original = [];\noriginal.add(0x67);\nvar unmodifiable = original.toUnmodifiable();\nunmodifiable.add(0x35);',
      ),
    ).rejects.toThrow('List is unmodifiable (line 4)');
  });

  it('parseInt refuses what Java refuses', async () => {
    for (const s of ['parseInt("2147483648", 10)', 'parseInt("99", 8)', 'parseInt("Kona", 10)'])
      await expect(tbel(`return ${s};`)).rejects.toThrow(/For input string|out of range/);
  });

  it('Java-like string methods', async () => {
    await expect(
      tbel(
        'var s = " Hello, World ";\nreturn [s.trim().toUpperCase(), s.contains("World"), s.trim().equalsIgnoreCase("hello, world"), "a,b,,c,,".split(","), "a.b.c".replace(".", "-"), "x1y22z".replaceAll("[0-9]+", "#"), s.isEmpty(), s.length(), "abc".matches("[a-c]+")];',
      ),
    ).resolves.toEqual(['HELLO, WORLD', true, true, ['a', 'b', '', 'c'], 'a-b-c', 'x#y#z', false, 14, true]);
  });
});

describe('TBEL: unary operators', () => {
  it('negates twice where a minus follows a minus, leaving the variable as it was', async () => {
    await expect(
      tbel('var t = msg.t; var n = - -t; var p = + +t; return [n, p, t, -(-t), - --t, t];', { t: 5 }),
    ).resolves.toEqual([5, 5, 5, 5, -4, 4]);
  });
});

describe('TBEL: the scripts of ThingsBoard’s default chains and node defaults', () => {
  const telemetry = { temperature: 25 };
  it('the log node script', async () => {
    await expect(
      tbel(
        "return '\\nIncoming message:\\n' + JSON.stringify(msg) + '\\nIncoming metadata:\\n' + JSON.stringify(metadata);",
        telemetry,
        { deviceName: 'A' },
      ),
    ).resolves.toBe('\nIncoming message:\n{"temperature":25}\nIncoming metadata:\n{"deviceName":"A"}');
  });

  it('the switch node script', async () => {
    const script =
      "function nextRelation(metadata, msg) {\n    return ['one','nine'];\n}\nif(msgType == 'POST_TELEMETRY_REQUEST') {\n    return ['two'];\n}\nreturn nextRelation(metadata, msg);";
    await expect(tbel(script, telemetry)).resolves.toEqual(['two']);
    await expect(tbel(script, telemetry, {}, 'POST_ATTRIBUTES_REQUEST')).resolves.toEqual(['one', 'nine']);
  });

  it('the generator node script (variables named like the arguments)', async () => {
    await expect(
      tbel(
        'var msg = { temp: 42, humidity: 77 };\nvar metadata = { data: 40 };\nvar msgType = "POST_TELEMETRY_REQUEST";\n\nreturn { msg: msg, metadata: metadata, msgType: msgType };',
      ),
    ).resolves.toEqual({
      msg: { temp: 42, humidity: 77 },
      metadata: { data: 40 },
      msgType: 'POST_TELEMETRY_REQUEST',
    });
  });
});

describe('TBEL: what is not supported is refused at save, with the line and the construct', () => {
  const cases: [string, number, string, RegExp][] = [
    ['var x = 1;\nswitch (x) {\n}', 2, 'switch', /switch statements are not TBEL/],
    ['return msg.a === 1;', 1, '===', /TBEL compares with ==/],
    [
      'var l = [];\nl = new java.util.ArrayList();',
      2,
      'new',
      /new java.util.ArrayList: TBEL creates maps with \{\} and lists with \[\] only/,
    ],
    ['var a = 1;\nvar g = (a) -> a + 1;', 2, '->', /lambdas are not supported/],
    ['return foo(1);', 1, 'foo', /unknown function 'foo'/],
    ['var a = 1;\n\nreturn temperature + a;', 3, 'temperature', /unknown variable 'temperature'/],
    ['return Integer.foo(1);', 1, 'foo', /Integer.foo is not supported/],
    ['var a = 1\nvar b = 2;', 2, 'var', /expected ';'/],
    ['try {\n} catch (e) {\n}', 1, 'try', /try \/ catch is not TBEL/],
    ['return `x`;', 1, '`', /template strings are not TBEL/],
    ['var big = 104.39484B;', 1, '104.39484B', /BigDecimal literals are not supported/],
    ['var x = {"a": 1};\nreturn x?.a;', 2, '?.', /TBEL's null-safe access is '\.\?'/],
    ['return java.io.File.separator;', 1, 'java', /class java.io.File.separator is not available/],
  ];
  for (const [script, line, construct, message] of cases) {
    it(`refuses '${construct}'`, () => {
      const r = refusal(script);
      expect(r.line).toBe(line);
      expect(r.construct).toBe(construct);
      expect(r.message).toMatch(message);
    });
  }
});
