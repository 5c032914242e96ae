// The TBEL runtime library. It runs inside the QuickJS sandbox (never in Node), once per TBEL script's
// context, before the translated script: ThingsBoard's helper functions (TbUtils), the Java-like methods of
// strings, lists and maps, and the classes TBEL exposes. tbel-library.ts lists the names a script may use.
(function (g) {
  'use strict';
  const origSplit = String.prototype.split;
  const origReplace = String.prototype.replace;
  const origSort = Array.prototype.sort;
  const origPush = Array.prototype.push;
  const jsParseInt = g.parseInt;
  const jsParseFloat = g.parseFloat;

  /** Defines a non-enumerable method; descriptors have no prototype, since Object.prototype gains `get`. */
  function def(target, name, fn) {
    const d = Object.create(null);
    d.value = fn;
    d.writable = true;
    d.configurable = true;
    d.enumerable = false;
    Object.defineProperty(target, name, d);
  }
  function fail(message) {
    throw new Error(message);
  }
  function isMap(v) {
    return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof TbDate);
  }
  function checkList(list) {
    if (Object.isFrozen(list)) fail('List is unmodifiable');
  }
  function checkMap(map) {
    if (Object.isFrozen(map)) fail('Map is unmodifiable');
  }
  function isNumeric(v) {
    return typeof v === 'number' || (typeof v === 'string' && v.trim() !== '' && !isNaN(Number(v)));
  }
  function javaEquals(a, b) {
    return a === b || (a !== null && b !== null && typeof a !== 'object' && a == b);
  }
  function sortValues(list, asc) {
    const numeric = list.every(isNumeric);
    const cmp = numeric
      ? (a, b) => Number(a) - Number(b)
      : (a, b) => {
          const x = typeof a === 'string' ? a : JSON.stringify(a);
          const y = typeof b === 'string' ? b : JSON.stringify(b);
          return x < y ? -1 : x > y ? 1 : 0;
        };
    origSort.call(list, asc === false ? (a, b) => cmp(b, a) : cmp);
    return list;
  }

  // --- strings --------------------------------------------------------------------------------------------
  const S = String.prototype;
  def(S, 'contains', function (s) {
    return this.indexOf(String(s)) >= 0;
  });
  def(S, 'equals', function (s) {
    return this.valueOf() === s;
  });
  def(S, 'equalsIgnoreCase', function (s) {
    return s !== null && s !== undefined && this.toLowerCase() === String(s).toLowerCase();
  });
  def(S, 'isEmpty', function () {
    return this.length === 0;
  });
  def(S, 'isBlank', function () {
    return this.trim().length === 0;
  });
  def(S, 'matches', function (re) {
    return new RegExp('^(?:' + re + ')$').test(this);
  });
  def(S, 'replace', function (a, b) {
    if (a instanceof RegExp || typeof b === 'function') return origReplace.call(this, a, b);
    return origSplit.call(this, String(a)).join(String(b));
  });
  def(S, 'replaceAll', function (re, b) {
    return origReplace.call(this, new RegExp(re, 'g'), b);
  });
  def(S, 'replaceFirst', function (re, b) {
    return origReplace.call(this, new RegExp(re), b);
  });
  def(S, 'split', function (sep, limit) {
    if (sep === undefined || sep instanceof RegExp) return origSplit.call(this, sep, limit);
    const parts = origSplit.call(this, new RegExp(sep));
    if (limit > 0 && parts.length > limit) {
      // Java keeps the rest of the string in the last part
      const head = parts.slice(0, limit - 1);
      let rest = this.valueOf();
      for (let i = 0; i < limit - 1; i++) {
        const m = new RegExp(sep).exec(rest);
        rest = rest.slice(m.index + m[0].length);
      }
      origPush.call(head, rest);
      return head;
    }
    while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
    return parts;
  });
  def(S, 'compareTo', function (s) {
    return this < s ? -1 : this > s ? 1 : 0;
  });
  def(S, 'compareToIgnoreCase', function (s) {
    const a = this.toLowerCase();
    const b = String(s).toLowerCase();
    return a < b ? -1 : a > b ? 1 : 0;
  });
  def(S, 'toCharArray', function () {
    return origSplit.call(this, '');
  });
  def(S, 'getBytes', function (charset) {
    return stringToBytes(this.valueOf(), charset);
  });
  def(S, 'strip', function () {
    return this.trim();
  });

  // --- numbers --------------------------------------------------------------------------------------------
  const N = Number.prototype;
  def(N, 'intValue', function () {
    return Math.trunc(this) | 0;
  });
  def(N, 'longValue', function () {
    return Math.trunc(this);
  });
  def(N, 'doubleValue', function () {
    return this.valueOf();
  });
  def(N, 'floatValue', function () {
    return Math.fround(this);
  });

  // --- lists ----------------------------------------------------------------------------------------------
  const A = Array.prototype;
  def(A, 'add', function (a, b) {
    checkList(this);
    if (arguments.length > 1) {
      this.splice(a, 0, b);
      return undefined;
    }
    origPush.call(this, a);
    return true;
  });
  def(A, 'addAll', function (a, b) {
    checkList(this);
    if (arguments.length > 1) this.splice(a, 0, ...b);
    else origPush.apply(this, a);
    return true;
  });
  def(A, 'push', function (...items) {
    checkList(this);
    origPush.apply(this, items);
    return true;
  });
  def(A, 'get', function (i) {
    if (i < 0 || i >= this.length) fail('Index ' + i + ' out of bounds for length ' + this.length);
    return this[i];
  });
  def(A, 'set', function (i, v) {
    checkList(this);
    if (i < 0 || i >= this.length) fail('Index ' + i + ' out of bounds for length ' + this.length);
    const old = this[i];
    this[i] = v;
    return old;
  });
  def(A, 'size', function () {
    return this.length;
  });
  def(A, 'isEmpty', function () {
    return this.length === 0;
  });
  def(A, 'contains', function (v) {
    return this.some((x) => javaEquals(x, v));
  });
  def(A, 'containsAll', function (list) {
    return list.every((v) => this.some((x) => javaEquals(x, v)));
  });
  def(A, 'remove', function (v) {
    checkList(this);
    if (typeof v === 'number') return this.splice(v, 1)[0];
    const i = this.findIndex((x) => javaEquals(x, v));
    if (i < 0) return false;
    this.splice(i, 1);
    return true;
  });
  def(A, 'clear', function () {
    checkList(this);
    this.length = 0;
  });
  def(A, 'unshift', function (...items) {
    checkList(this);
    this.splice(0, 0, ...items);
    return undefined;
  });
  def(A, 'sort', function (asc) {
    if (typeof asc === 'function') return origSort.call(this, asc);
    checkList(this);
    sortValues(this, asc);
    return undefined;
  });
  def(A, 'toSorted', function (asc) {
    return sortValues(this.slice(), asc);
  });
  def(A, 'toReversed', function () {
    return this.slice().reverse();
  });
  def(A, 'toSpliced', function (...args) {
    const copy = this.slice();
    copy.splice(...args);
    return copy;
  });
  def(A, 'with', function (i, v) {
    const copy = this.slice();
    copy[i < 0 ? copy.length + i : i] = v;
    return copy;
  });
  def(A, 'memorySize', function () {
    return this.length * 8;
  });
  def(A, 'validateClazzInArrayIsOnlyNumber', function () {
    return this.every((x) => typeof x === 'number');
  });
  def(A, 'toUnmodifiable', function () {
    return Object.freeze(this.slice());
  });
  def(A, 'indexOf', function (v, from) {
    for (let i = from || 0; i < this.length; i++) if (javaEquals(this[i], v)) return i;
    return -1;
  });

  // --- maps (plain objects) -------------------------------------------------------------------------------
  const O = Object.prototype;
  const has = (m, k) => Object.prototype.hasOwnProperty.call(m, k);
  function entry(key, value) {
    const e = Object.create(Entry);
    e.key = key;
    e.value = value;
    return e;
  }
  const Entry = {};
  def(Entry, 'getKey', function () {
    return this.key;
  });
  def(Entry, 'getValue', function () {
    return this.value;
  });
  def(O, 'put', function (k, v) {
    checkMap(this);
    const old = has(this, k) ? this[k] : null;
    this[k] = v;
    return old;
  });
  def(O, 'get', function (k) {
    return has(this, k) ? this[k] : null;
  });
  def(O, 'getOrDefault', function (k, d) {
    return has(this, k) ? this[k] : d;
  });
  def(O, 'containsKey', function (k) {
    return has(this, k);
  });
  def(O, 'containsValue', function (v) {
    return Object.keys(this).some((k) => javaEquals(this[k], v));
  });
  def(O, 'remove', function (k) {
    checkMap(this);
    const old = has(this, k) ? this[k] : null;
    delete this[k];
    return old;
  });
  def(O, 'keys', function () {
    return Object.keys(this);
  });
  def(O, 'keySet', function () {
    return Object.keys(this);
  });
  def(O, 'values', function () {
    return Object.keys(this).map((k) => this[k]);
  });
  def(O, 'entrySet', function () {
    return Object.keys(this).map((k) => entry(k, this[k]));
  });
  def(O, 'size', function () {
    return Object.keys(this).length;
  });
  def(O, 'isEmpty', function () {
    return Object.keys(this).length === 0;
  });
  def(O, 'putAll', function (m) {
    checkMap(this);
    for (const k of Object.keys(m)) this[k] = m[k];
  });
  def(O, 'putIfAbsent', function (k, v) {
    checkMap(this);
    if (has(this, k) && this[k] !== null) return this[k];
    this[k] = v;
    return null;
  });
  def(O, 'replace', function (k, a, b) {
    checkMap(this);
    if (arguments.length > 2) {
      if (!has(this, k) || !javaEquals(this[k], a)) return false;
      this[k] = b;
      return true;
    }
    if (!has(this, k)) return null;
    const old = this[k];
    this[k] = a;
    return old;
  });
  def(O, 'clear', function () {
    checkMap(this);
    for (const k of Object.keys(this)) delete this[k];
  });
  function reorder(map, keys) {
    const copy = keys.map((k) => [k, map[k]]);
    for (const k of keys) delete map[k];
    for (const [k, v] of copy) map[k] = v;
  }
  def(O, 'sortByKey', function () {
    checkMap(this);
    reorder(this, origSort.call(Object.keys(this)));
  });
  def(O, 'sortByValue', function () {
    checkMap(this);
    const keys = Object.keys(this);
    const numeric = keys.every((k) => isNumeric(this[k]));
    origSort.call(keys, (a, b) => {
      const x = this[a];
      const y = this[b];
      if (numeric) return Number(x) - Number(y);
      return String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0;
    });
    reorder(this, keys);
  });
  def(O, 'toUnmodifiable', function () {
    return Object.freeze(Object.assign({}, this));
  });
  def(O, 'memorySize', function () {
    return JSON.stringify(this).length;
  });

  // --- translator support ---------------------------------------------------------------------------------
  g.__tb = {
    iter(c) {
      if (c === null || c === undefined) fail('Cannot iterate over null');
      if (Array.isArray(c)) return c;
      if (typeof c === 'string') return origSplit.call(c, '');
      if (typeof c === 'object') return Object.keys(c).map((k) => c[k]);
      return fail('Cannot iterate over ' + typeof c);
    },
    len(v) {
      if (v === null || v === undefined) fail('Cannot read length of null');
      return typeof v === 'string' || Array.isArray(v) ? v.length : Object.keys(v).length;
    },
    size(v) {
      if (v === null || v === undefined) fail('Cannot read size of null');
      return Array.isArray(v) || typeof v === 'string' ? v.length : Object.keys(v).length;
    },
    newArray(n) {
      if (!(n >= 0 && n <= 1000000)) fail('Invalid array size: ' + n);
      return new Array(n).fill(0);
    },
  };

  // --- bytes, strings and numbers -------------------------------------------------------------------------
  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  function toByte(v) {
    let n = typeof v === 'string' ? parseInt(v) : v;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < -128 || n > 255)
      fail("The value '" + v + "' could not be correctly converted to a byte.");
    return n > 127 ? n - 256 : n;
  }
  function bytesOf(list) {
    if (!Array.isArray(list)) fail('Expected a list of bytes');
    return list.map(toByte);
  }
  function utf8Encode(str) {
    const out = [];
    for (let i = 0; i < str.length; i++) {
      let c = str.codePointAt(i);
      if (c > 0xffff) i++;
      if (c < 0x80) out.push(c);
      else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
      else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    return out;
  }
  function utf8Decode(bytes) {
    let s = '';
    for (let i = 0; i < bytes.length;) {
      const b = bytes[i++] & 255;
      let c;
      if (b < 0x80) c = b;
      else if (b >= 0xf0)
        c = ((b & 7) << 18) | ((bytes[i++] & 63) << 12) | ((bytes[i++] & 63) << 6) | (bytes[i++] & 63);
      else if (b >= 0xe0) c = ((b & 15) << 12) | ((bytes[i++] & 63) << 6) | (bytes[i++] & 63);
      else if (b >= 0xc0) c = ((b & 31) << 6) | (bytes[i++] & 63);
      else c = 0xfffd;
      s += String.fromCodePoint(c);
    }
    return s;
  }
  function isLatin1(charset) {
    return charset && /^(ISO-8859-1|latin1|US-ASCII|ASCII)$/i.test(String(charset));
  }
  function stringToBytes(str, charset) {
    if (str === null || str === undefined) fail('Input string is null');
    str = String(str);
    const raw = isLatin1(charset)
      ? origSplit.call(str, '').map((c) => c.charCodeAt(0) & 255)
      : utf8Encode(str);
    return raw.map((b) => (b > 127 ? b - 256 : b));
  }
  function bytesToString(bytes, charset) {
    const b = bytesOf(bytes);
    return isLatin1(charset) ? b.map((x) => String.fromCharCode(x & 255)).join('') : utf8Decode(b);
  }
  function bytesToBase64(bytes) {
    const b = bytesOf(bytes).map((x) => x & 255);
    let out = '';
    for (let i = 0; i < b.length; i += 3) {
      const n = (b[i] << 16) | ((b[i + 1] ?? 0) << 8) | (b[i + 2] ?? 0);
      out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63];
      out += i + 1 < b.length ? B64[(n >> 6) & 63] : '=';
      out += i + 2 < b.length ? B64[n & 63] : '=';
    }
    return out;
  }
  function base64ToBytes(input) {
    const s = origReplace.call(String(input), /[\s=]/g, '');
    const out = [];
    let buf = 0;
    let bits = 0;
    for (const ch of s) {
      const v = B64.indexOf(ch === '-' ? '+' : ch === '_' ? '/' : ch);
      if (v < 0) fail('Illegal base64 character ' + ch);
      buf = (buf << 6) | v;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        const byte = (buf >> bits) & 255;
        out.push(byte > 127 ? byte - 256 : byte);
      }
    }
    return out;
  }
  function hexToBytes(hex) {
    let h = String(hex).trim();
    if (/^0x/i.test(h)) h = h.slice(2);
    if (h.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(h))
      fail('Hex string must be even-length and hexadecimal: ' + hex);
    const out = [];
    for (let i = 0; i < h.length; i += 2) out.push(toByte(jsParseInt(h.substr(i, 2), 16)));
    return out;
  }
  function bytesToHex(bytes) {
    return bytesOf(bytes)
      .map((b) => ((b & 255) < 16 ? '0' : '') + (b & 255).toString(16).toUpperCase())
      .join('');
  }
  function prepareNumber(value, bigEndian) {
    if (value === null || value === undefined) return null;
    let v = String(value).trim();
    if (v === '') return null;
    let sign = '';
    if (v[0] === '-' || v[0] === '+') {
      sign = v[0] === '-' ? '-' : '';
      v = v.slice(1);
    }
    if (/^0x/i.test(v)) v = v.slice(2);
    if (bigEndian === false) v = reverseHexBytes(v);
    return { sign, digits: v, hex: /^[+-]?0x/i.test(String(value).trim()) };
  }
  function reverseHexBytes(h) {
    const s = h.length % 2 ? '0' + h : h;
    let out = '';
    for (let i = s.length - 2; i >= 0; i -= 2) out += s.substr(i, 2);
    return out;
  }
  function detectRadix(p, radix) {
    if (radix) return radix;
    if (p.hex) return 16;
    if (/^[0-9]+$/.test(p.digits)) return 10;
    if (/^[0-9a-fA-F]+$/.test(p.digits)) return 16;
    return 10;
  }
  function parseBig(value, radix, bigEndian, bits) {
    const p = prepareNumber(value, bigEndian);
    if (!p) return null;
    const r = detectRadix(p, radix);
    if (!(r >= 2 && r <= 36)) fail('Invalid radix: [' + radix + ']');
    const valid = '0123456789abcdefghijklmnopqrstuvwxyz'.slice(0, r);
    if (p.digits === '' || [...p.digits.toLowerCase()].some((c) => valid.indexOf(c) < 0))
      fail('For input string: "' + value + '" under radix ' + r);
    let n = 0n;
    for (const c of p.digits.toLowerCase()) n = n * BigInt(r) + BigInt(valid.indexOf(c));
    if (p.sign === '-') n = -n;
    const max = (1n << BigInt(bits - 1)) - 1n;
    if (n > max || n < -max - 1n) fail('Value "' + value + '" is out of range of a ' + bits + '-bit number');
    return n;
  }
  function parseIntTb(value, radix) {
    const n = parseBig(value, radix, true, 32);
    return n === null ? null : Number(n);
  }
  function parseLongTb(value, radix) {
    const n = parseBig(value, radix, true, 64);
    return n === null ? null : Number(n);
  }
  function parseFloatTb(value) {
    const n = jsParseFloat(value);
    if (isNaN(n) && String(value).trim() !== 'NaN') fail('For input string: "' + value + '"');
    return n;
  }
  function bytesView(data, offset, length, max, bigEndian) {
    const b = bytesOf(data);
    offset = offset || 0;
    if (length === undefined) length = Math.min(max, b.length - offset);
    if (length > max) fail('Length: ' + length + ' is greater than ' + max);
    if (offset + length > b.length) fail('Offset: ' + offset + ' and Length: ' + length + ' is out of range');
    const slice = b.slice(offset, offset + length);
    if (bigEndian === false) slice.reverse();
    return slice;
  }
  // QuickJS's BigInt.asUintN / asIntN give wrong results for negative values (asUintN(64, -1n) < 0)
  function toUnsigned(bits, n) {
    const m = 1n << BigInt(bits);
    return ((n % m) + m) % m;
  }
  function toSigned(bits, n) {
    const u = toUnsigned(bits, n);
    return u >= 1n << BigInt(bits - 1) ? u - (1n << BigInt(bits)) : u;
  }
  function bytesToBigInt(slice, signedBits) {
    let n = 0n;
    for (const x of slice) n = (n << 8n) | BigInt(x & 255);
    return toSigned(signedBits, n);
  }
  function floatFromBits(bits32) {
    const dv = new DataView(new ArrayBuffer(4));
    dv.setUint32(0, bits32 >>> 0);
    return dv.getFloat32(0);
  }
  function doubleFromBits(big) {
    const dv = new DataView(new ArrayBuffer(8));
    dv.setBigUint64(0, toUnsigned(64, big));
    return dv.getFloat64(0);
  }
  function hexOfNumber(number, bigEndian, pref, len, maxLen) {
    const n = BigInt(Math.trunc(number));
    let hex = (n < 0n ? toUnsigned(64, n) : n).toString(16).toUpperCase();
    if (maxLen < 0) maxLen = hex.length;
    hex = origReplace.call(hex, /^0+(?!$)/, '');
    if (hex.length % 2) hex = '0' + hex;
    if (n < 0n) {
      hex = origReplace.call(hex, /^F+(?!$)/, '');
      if (hex.length % 2) hex = 'F' + hex;
      if (maxLen > 0 && hex.length > maxLen) hex = hex.slice(hex.length - maxLen);
      else if (maxLen > 0 && hex.length < maxLen) hex = 'FF' + hex;
    }
    if (bigEndian === false) hex = reverseHexBytes(hex);
    if (len > 0) hex = hex.slice(Math.max(0, hex.length - len));
    return (pref ? '0x' : '') + hex;
  }
  function radixCheck(str, re, radix) {
    return typeof str === 'string' && re.test(str) ? radix : -1;
  }
  function toFixed(value, precision) {
    const v = Number(value);
    const s = String(Math.abs(v));
    if (s.indexOf('e') >= 0) return Number(v.toFixed(precision));
    const sign = v < 0 ? -1 : 1;
    return sign * Number(Math.round(Number(s + 'e' + precision)) + 'e-' + precision);
  }
  function toFlatMap(json, a, b) {
    const exclude = Array.isArray(a) ? a : [];
    const pathInKey = typeof a === 'boolean' ? a : typeof b === 'boolean' ? b : true;
    const out = {};
    const walk = (value, path, key) => {
      if (value !== null && typeof value === 'object') {
        const keys = Array.isArray(value) ? value.map((_, i) => String(i)) : Object.keys(value);
        for (const k of keys) {
          if (exclude.indexOf(k) >= 0) continue;
          walk(value[k], path ? path + '.' + k : k, Array.isArray(value) && !pathInKey ? key + '.' + k : k);
        }
      } else out[pathInKey ? path : key] = value;
    };
    for (const k of Object.keys(json)) if (exclude.indexOf(k) < 0) walk(json[k], k, k);
    return out;
  }

  const helpers = {
    btoa: (s) => bytesToBase64(origSplit.call(String(s), '').map((c) => c.charCodeAt(0) & 255)),
    atob: (s) =>
      base64ToBytes(s)
        .map((b) => String.fromCharCode(b & 255))
        .join(''),
    toFixed,
    stringToBytes,
    bytesToString,
    decodeToString: bytesToString,
    decodeToJson: (bytes) => JSON.parse(bytesToString(bytes)),
    isBinary: (s) => radixCheck(s, /^[01]+$/, 2),
    isOctal: (s) => radixCheck(s, /^[0-7]+$/, 8),
    isDecimal: (s) => radixCheck(s, /^-?[0-9]+$/, 10),
    isHexadecimal: (s) => radixCheck(s, /^(0x)?[0-9a-fA-F]+$/, 16),
    raiseError: (message) => fail(String(message)),
    printUnsignedBytes: (bytes) => bytesOf(bytes).map((b) => b & 255),
    padStart: (s, n, c) => String(s).padStart(n, c),
    padEnd: (s, n, c) => String(s).padEnd(n, c),
    intToHex: (i, be, pref, len) => hexOfNumber(i, be !== false, pref, len, 8),
    longToHex: (l, be, pref, len) => hexOfNumber(l, be !== false, pref, len, 16),
    floatToHex: (f, be) => {
      const dv = new DataView(new ArrayBuffer(4));
      dv.setFloat32(0, f);
      const hex = dv.getUint32(0).toString(16).toUpperCase().padStart(8, '0');
      return '0x' + (be === false ? reverseHexBytes(hex) : hex);
    },
    doubleToHex: (d, be) => {
      const dv = new DataView(new ArrayBuffer(8));
      dv.setFloat64(0, d);
      const hex = dv.getBigUint64(0).toString(16).toUpperCase().padStart(16, '0');
      return '0x' + (be === false ? reverseHexBytes(hex) : hex);
    },
    intLongToRadixString: (n, radix, be, pref) => {
      radix = radix || 10;
      const big = BigInt(Math.trunc(n));
      if (radix === 16) return hexOfNumber(n, be !== false, pref, -1, -1);
      if (radix === 10) return big.toString();
      const bin = (big < 0n ? toUnsigned(64, big) : big).toString(radix);
      if (radix === 2) return bin.length % 8 ? '0'.repeat(8 - (bin.length % 8)) + bin : bin;
      return bin;
    },
    parseInt: parseIntTb,
    parseLong: parseLongTb,
    parseFloat: parseFloatTb,
    parseDouble: parseFloatTb,
    toInt: (v) => Math.round(Number(v)),
    parseHexToInt: (hex, be) => Number(parseBig(hex, 16, be, 32)),
    parseHexToLong: (hex, be) => Number(parseBig(hex, 16, be, 65)),
    parseHexToFloat: (hex, be) => floatFromBits(Number(parseBig(hex, 16, be, 33))),
    parseHexToDouble: (hex, be) => doubleFromBits(parseBig(hex, 16, be, 65)),
    parseHexIntLongToFloat: (hex, be) => Number(parseBig(hex, 16, be, 65)),
    hexToBytes,
    hexToBytesArray: hexToBytes,
    bytesToHex,
    bytesToBase64,
    base64ToBytes,
    base64ToBytesList: base64ToBytes,
    base64ToHex: (s) => bytesToHex(base64ToBytes(s)),
    hexToBase64: (h) => bytesToBase64(hexToBytes(h)),
    bytesToExecutionArrayList: (bytes) => bytesOf(bytes),
    parseBytesToInt: (d, o, l, be) => Number(bytesToBigInt(bytesView(d, o, l, 4, be), 32)),
    parseBytesToLong: (d, o, l, be) => Number(bytesToBigInt(bytesView(d, o, l, 8, be), 64)),
    parseBytesToFloat: (d, o, l, be) => {
      const s = bytesView(d, o, l, 4, be);
      return floatFromBits(Number(toUnsigned(32, bytesToBigInt(s, 32))));
    },
    parseBytesToDouble: (d, o, l, be) => doubleFromBits(bytesToBigInt(bytesView(d, o, l, 8, be), 64)),
    parseBytesIntToFloat: (d, o, l, be) =>
      Number(toUnsigned(32, bytesToBigInt(bytesView(d, o, l, 4, be), 32))),
    parseBytesLongToDouble: (d, o, l, be) =>
      Number(toUnsigned(64, bytesToBigInt(bytesView(d, o, l, 8, be), 64))),
    parseByteToBinaryArray: (byteValue, binLength, be) => {
      const bits = [];
      for (let i = 7; i >= 0; i--) bits.push((byteValue >> i) & 1);
      const n = binLength === undefined ? 8 : binLength;
      return be === false ? bits.reverse().slice(0, n) : bits.slice(8 - n);
    },
    parseBytesToBinaryArray: (bytes, binLength) => {
      const bits = [];
      for (const b of bytesOf(bytes)) for (let i = 7; i >= 0; i--) bits.push((b >> i) & 1);
      return binLength === undefined ? bits : bits.slice(bits.length - binLength);
    },
    parseLongToBinaryArray: (value, binLength) => {
      const bin = toUnsigned(64, BigInt(Math.trunc(value)))
        .toString(2)
        .padStart(64, '0');
      const bits = origSplit.call(bin, '').map(Number);
      return binLength === undefined ? bits : bits.slice(64 - binLength);
    },
    parseBinaryArrayToInt: (bits, offset, length) => {
      offset = offset || 0;
      const slice = bits.slice(offset, length === undefined ? bits.length : offset + length);
      let n = 0;
      for (const b of slice) n = n * 2 + (b ? 1 : 0);
      if (slice.length === 8 && slice[0]) n -= 256;
      return n;
    },
    toFlatMap,
    isNaN: (v) => typeof v === 'number' && v !== v,
    isMap,
    isList: (v) => Array.isArray(v),
    isArray: (v) => Array.isArray(v),
    isSet: () => false,
    newSet: (list) => Array.from(new Set(list || [])),
    toSet: (list) => Array.from(new Set(list || [])),
  };
  for (const name of ['Int', 'Long', 'Float', 'Double']) {
    helpers['parseLittleEndianHexTo' + name] = (hex) => helpers['parseHexTo' + name](hex, false);
    helpers['parseBigEndianHexTo' + name] = (hex) => helpers['parseHexTo' + name](hex, true);
  }
  for (const name of Object.keys(helpers)) g[name] = helpers[name];

  // --- classes --------------------------------------------------------------------------------------------
  function TbDate(...args) {
    let ms;
    if (args.length === 0) ms = Date.now();
    else if (args.length === 1 && typeof args[0] === 'number') ms = args[0];
    else if (typeof args[0] === 'number') {
      const [y, mo, d, h, mi, s] = args;
      ms = Date.UTC(y, (mo || 1) - 1, d || 1, h || 0, mi || 0, s || 0);
    } else {
      ms = Date.parse(String(args[0]));
      if (isNaN(ms)) fail('Could not parse date: ' + args[0]);
    }
    this.ms = ms;
  }
  const D = TbDate.prototype;
  def(D, 'getTime', function () {
    return this.ms;
  });
  // Java's Instant.toString: no fraction when the milliseconds are zero
  const iso = (ms) => origReplace.call(new Date(ms).toISOString(), '.000Z', 'Z');
  def(D, 'toISOString', function () {
    return iso(this.ms);
  });
  def(D, 'toJSON', function () {
    return iso(this.ms);
  });
  def(D, 'toString', function () {
    return iso(this.ms);
  });
  def(D, 'toLocaleString', function () {
    return origReplace.call(new Date(this.ms).toISOString().slice(0, 19), 'T', ' ');
  });
  const add = (unit) =>
    function (n) {
      this.ms += n * unit;
    };
  def(D, 'addSeconds', add(1000));
  def(D, 'addMinutes', add(60000));
  def(D, 'addHours', add(3600000));
  def(D, 'addDays', add(86400000));
  def(D, 'addWeeks', add(7 * 86400000));
  def(D, 'addNanos', add(1e-6));
  def(D, 'addMonths', function (n) {
    const d = new Date(this.ms);
    d.setUTCMonth(d.getUTCMonth() + n);
    this.ms = d.getTime();
  });
  def(D, 'addYears', function (n) {
    const d = new Date(this.ms);
    d.setUTCFullYear(d.getUTCFullYear() + n);
    this.ms = d.getTime();
  });
  for (const m of ['FullYear', 'Month', 'Date', 'Day', 'Hours', 'Minutes', 'Seconds', 'Milliseconds']) {
    def(D, 'get' + m, function () {
      return new Date(this.ms)['getUTC' + m]();
    });
    def(D, 'getUTC' + m, function () {
      return new Date(this.ms)['getUTC' + m]();
    });
  }
  const numberClass = (bits) => ({
    toString: (n, radix) => {
      const big = BigInt(Math.trunc(n));
      return radix && radix !== 10
        ? big < 0n
          ? '-' + (-big).toString(radix)
          : big.toString(radix)
        : String(n);
    },
    parseInt: parseIntTb,
    parseLong: parseLongTb,
    valueOf: (v) => (typeof v === 'string' ? (bits === 32 ? parseIntTb(v) : parseLongTb(v)) : Math.trunc(v)),
    toHexString: (n) => toUnsigned(bits, BigInt(Math.trunc(n))).toString(16),
    MAX_VALUE: bits === 32 ? 2147483647 : 2 ** 63 - 1,
    MIN_VALUE: bits === 32 ? -2147483648 : -(2 ** 63),
  });
  const floatClass = {
    toString: (n) => String(n),
    parseDouble: parseFloatTb,
    parseFloat: parseFloatTb,
    valueOf: (v) => (typeof v === 'string' ? parseFloatTb(v) : Number(v)),
    toHexString: (n) => String(n),
    isNaN: (v) => v !== v,
    MAX_VALUE: Number.MAX_VALUE,
    MIN_VALUE: Number.MIN_VALUE,
  };
  g.__tbc = {
    Date: TbDate,
    Integer: numberClass(32),
    Long: numberClass(64),
    Double: floatClass,
    Float: floatClass,
    Boolean: {
      parseBoolean: (s) => String(s).toLowerCase() === 'true',
      valueOf: (s) => (typeof s === 'boolean' ? s : String(s).toLowerCase() === 'true'),
      toString: (b) => String(b),
    },
    String: {
      valueOf: (v) => (v === null || v === undefined ? 'null' : String(v)),
      join: (sep, list) => list.join(sep),
      format: (fmt, ...args) => {
        let i = 0;
        return origReplace.call(String(fmt), /%(\.(\d+))?([sdfx%])/g, (m, _p, prec, conv) => {
          if (conv === '%') return '%';
          const v = args[i++];
          if (conv === 'd') return String(Math.trunc(v));
          if (conv === 'x') return Math.trunc(v).toString(16);
          if (conv === 'f') return Number(v).toFixed(prec === undefined ? 6 : Number(prec));
          return String(v);
        });
      },
    },
    Collections: {
      reverse: (list) => {
        list.reverse();
      },
      sort: (list) => {
        sortValues(list, true);
      },
      max: (list) => list.reduce((a, b) => (b > a ? b : a)),
      min: (list) => list.reduce((a, b) => (b < a ? b : a)),
      emptyList: () => [],
      emptyMap: () => ({}),
    },
    Arrays: {
      asList: (...items) => (items.length === 1 && Array.isArray(items[0]) ? items[0].slice() : items),
      toString: (list) => '[' + list.join(', ') + ']',
    },
    System: { currentTimeMillis: () => Date.now() },
  };
  const mathExtra = {
    signum: (x) => Math.sign(x),
    toDegrees: (r) => (r * 180) / Math.PI,
    toRadians: (d) => (d * Math.PI) / 180,
  };
  for (const k of Object.keys(mathExtra)) def(Math, k, mathExtra[k]);
  // JSON.stringify of a TbDate gives its ISO time; nothing of the host is reachable from here.
})(globalThis);
