'use strict';
// How a stream of frames is cut into reads: a chunk plan as data, so that the
// stream check, the arbitraries that draw plans and the reducer share it.

// Read sizes for a plan, given the frame lengths of the stream.
function chunkSizes(plan, frameLengths) {
  const total = frameLengths.reduce((a, b) => a + b, 0);
  switch (plan.k) {
    case 'whole': return [];
    case 'bytewise': return new Array(total).fill(1);
    case 'split-length': {
      // Every read ends two bytes into a length field.
      const sizes = [];
      let carried = 0;
      for (const len of frameLengths) {
        sizes.push(carried + 2);
        carried = len - 2;
      }
      return sizes;
    }
    case 'frames': {
      // Reads end where frames do, frame i sharing a read with the next
      // where joins[i]; the first `lead` bytes come alone in a read before.
      const sizes = [];
      let read = 0;
      frameLengths.forEach((len, i) => {
        read += len;
        if (!plan.joins[i] || i === frameLengths.length - 1) {
          sizes.push(read);
          read = 0;
        }
      });
      if (plan.lead > 0 && plan.lead < sizes[0]) sizes.splice(0, 1, plan.lead, sizes[0] - plan.lead);
      return sizes;
    }
    default: return plan.sizes;
  }
}

module.exports = { chunkSizes };
