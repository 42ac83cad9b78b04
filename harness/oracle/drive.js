'use strict';
// One protocol, two ways of waiting: a generator yields what it waits for,
// and the driver waits blocking while those are values, asynchronously once
// one is a promise. The checks, the confirmation and the crash judge are
// written once so, for the blocking driver (Jazzer.js --sync) and the async one.

const isPromise = (x) => typeof x?.then === 'function';

// Runs generator `steps` to its end: each value it yields is answered by
// answer(value), which gives the answer or an array of answers. It waits in
// the way the answers ask: it runs blocking while they are values, and gives
// a promise from the first one that is a promise (or holds promises) on.
function drive(steps, answer = (x) => x) {
  let step = steps.next();
  while (!step.done) {
    const answered = answer(step.value);
    if (isPromise(answered) || (Array.isArray(answered) && answered.some(isPromise))) {
      return driveAsync(steps, answer, answered);
    }
    step = steps.next(answered);
  }
  return step.value;
}

// A rejected answer is thrown into the generator, which may catch it.
async function driveAsync(steps, answer, answered) {
  const settled = (x) => (Array.isArray(x) ? Promise.all(x) : x);
  const resume = async (pending) => {
    try {
      return steps.next(await settled(pending));
    } catch (err) {
      return steps.throw(err);
    }
  };
  let step = await resume(answered);
  while (!step.done) step = await resume(answer(step.value));
  return step.value;
}

// f(x), or a promise of it once x settles, when x is a promise.
const when = (x, f) => (isPromise(x) ? x.then(f) : f(x));

module.exports = { drive, isPromise, when };
