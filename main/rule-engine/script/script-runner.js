// The sandbox's own code inside each script's QuickJS context. It is evaluated before anything of the
// script (the TBEL runtime, the script itself), keeps the built-ins it uses from before the script could
// replace them, and is reachable only from the host: nothing the script overwrites (JSON, Array.prototype,
// getters, toJSON) changes how its input is read or how its result is written. Each call's result is
// written as text by this code alone, bounded in size and depth, and handed to the host through `done`, a
// host function only this code holds: 'u' (no result), 'v' + JSON, or 'e' + JSON of {e, n, s, k}.
// A script loaded with numbers gets a 4th argument, an ArrayBuffer the host reads after the call: it may
// return [text, count] (its own text, and the count of doubles it wrote there), handed over as 's' + text
// and the count, which the host checks again (nothing in the buffer is trusted).
// eslint-disable-next-line @typescript-eslint/no-unused-expressions -- the file's value is this function
(function (done, maxDepth) {
  'use strict';
  var parse = JSON.parse;
  var quote = JSON.stringify;
  var keysOf = Object.keys;
  var isArray = Array.isArray;
  var apply = Reflect.apply;
  var toText = String;
  var slice = String.prototype.slice;
  var ErrorType = Error;
  var InternalErrorType = InternalError;
  var TypeErrorType = TypeError;
  var floor = Math.floor;

  /** A bound the result broke: reported as the call's failure, with the reason the host counts. */
  function Limit(message, kind) {
    this.message = message;
    this.kind = kind;
  }

  var room = 0;
  var max = 0;

  function tooBig() {
    return new Limit('Script invocation result exceeds maximum allowed size of ' + max + ' symbols', 'size');
  }

  function take(s) {
    room -= s.length;
    if (room < 0) throw tooBig();
    return s;
  }

  /** JSON.stringify's rules, with the copies of the built-ins above; undefined where it would skip. */
  function write(v, key, up, depth) {
    if (typeof v === 'object' && v !== null) {
      var toJSON = v.toJSON;
      if (typeof toJSON === 'function') v = apply(toJSON, v, [key]);
    }
    switch (typeof v) {
      case 'string':
        if (v.length > room) throw tooBig();
        return take(quote(v));
      case 'number':
        return take(v === v && v !== Infinity && v !== -Infinity ? quote(v) : 'null');
      case 'boolean':
        return take(v ? 'true' : 'false');
      case 'bigint':
        throw new TypeErrorType('Do not know how to serialize a BigInt');
      case 'object':
        if (v === null) return take('null');
        break;
      default:
        return undefined;
    }
    for (var a = up; a !== null; a = a.up)
      if (a.v === v) throw new Limit('Script result is cyclic: it contains itself', 'runtime');
    if (depth >= maxDepth)
      throw new Limit('Script result is nested deeper than ' + maxDepth + ' levels', 'runtime');
    var here = { v: v, up: up };
    var out;
    if (isArray(v)) {
      var n = v.length;
      if (typeof n !== 'number' || !(n >= 0))
        throw new Limit('Script result has an invalid length', 'runtime');
      if (n > room) throw tooBig();
      out = take('[');
      for (var i = 0; i < n; i++) {
        var item = write(v[i], toText(i), here, depth + 1);
        out += (i ? take(',') : '') + (item === undefined ? take('null') : item);
      }
      return out + take(']');
    }
    var keys = keysOf(v);
    var first = true;
    out = take('{');
    for (var j = 0; j < keys.length; j++) {
      var k = keys[j];
      var value = write(v[k], k, here, depth + 1);
      if (value === undefined) continue;
      out += (first ? '' : take(',')) + take(quote(k)) + take(':') + value;
      first = false;
    }
    return out + take('}');
  }

  function text(x, limit) {
    if (x === undefined) return '';
    var s = typeof x === 'string' ? x : toText(x);
    if (typeof s !== 'string') return '';
    return s.length > limit ? apply(slice, s, [0, limit]) : s;
  }

  /** What a call threw, as {e: message, n: name, s: stack} (or k: the limit it broke). */
  function describe(e) {
    try {
      if (e instanceof Limit) return '{"e":' + quote(e.message) + ',"k":' + quote(e.kind) + '}';
      if (e !== null && typeof e === 'object' && e instanceof ErrorType) {
        var message = text(e.message, 2000);
        var name = text(e.name, 200);
        var stack = text(e.stack, 4000);
        return '{"e":' + quote(message) + ',"n":' + quote(name) + ',"s":' + quote(stack) + '}';
      }
      return '{"e":' + quote(text(e, 2000)) + '}';
    } catch {
      return '{"e":"The script threw a value that cannot be read"}';
    }
  }

  function outOfMemory(e) {
    try {
      return e === null || (e instanceof InternalErrorType && e.message === 'out of memory');
    } catch {
      return false;
    }
  }

  var packed = '';

  /**
   * A [text, count] result of a script with numbers: the count of doubles it wrote (its text in `packed`,
   * each read once), or -1 when it is not that.
   */
  function counted(r, capacity) {
    if (!isArray(r) || r.length !== 2) return -1;
    var t = r[0];
    var n = r[1];
    if (typeof t !== 'string' || typeof n !== 'number') return -1;
    if (!(n >= 0 && n <= capacity && floor(n) === n))
      throw new Limit('The script gave an invalid count of numbers', 'runtime');
    if (t.length + n * 8 > max) throw tooBig();
    packed = t;
    return n;
  }

  /**
   * Runs fn on each [msg, metadata, msgType] of the JSON array `input`; each result goes to done(). With
   * `numbers` (an ArrayBuffer of `capacity` doubles), fn gets it too, and a [text, count] result goes as
   * done('s' + text, count).
   */
  return function run(fn, input, limit, numbers, capacity) {
    var calls = parse(input);
    max = limit;
    for (var i = 0; i < calls.length; i++) {
      var c = calls[i];
      var out;
      var count = -1;
      try {
        var r =
          numbers === undefined
            ? apply(fn, undefined, [c[0], c[1], c[2]])
            : apply(fn, undefined, [c[0], c[1], c[2], numbers]);
        room = max;
        if (numbers !== undefined) count = counted(r, capacity);
        if (count >= 0) out = 's' + packed;
        else {
          var t = write(r, '', null, 0);
          out = t === undefined ? 'u' : 'v' + t;
        }
      } catch (e) {
        // out of memory fails the call from the host, which throws the runtime away
        if (outOfMemory(e)) throw e;
        out = 'e' + describe(e);
        count = -1;
      }
      if (count >= 0) done(out, count);
      else done(out);
    }
  };
});
