#pragma once
// A layer's attention weights as f32 when its reader left them in the file
// (LayerSource::read_layer_for_products): the Pipeline's steps show W_in and W_o whole, so
// its block converts them once, without converting the layer's feed-forward.
#include "core/kernels/stored_matrix.h"
#include "core/model/weights.h"

namespace hs {

// (rows, cols) f32 = `stored` converted, read from its file a block of rows at a time.
Matrix stored_as_f32(const StoredMatrix& stored);

// A copy of `attention` whose W_in and W_o are f32 matrices, converted from the file when
// they were left there (in_proj_stored and out_proj_stored then null).
AttentionWeights attention_as_f32(const AttentionWeights& attention);

}  // namespace hs
