"""outside_models.py - models nobody here wrote, for bench/zoo_check.py.

Hugging Face `transformers` and `timm` models built from their configs and
constructors (small sizes, weights drawn from torch.manual_seed(0), nothing
downloaded), the U-Net and LSTM language model that a new user would
write from the PyTorch tutorials, a 3-D U-Net as nnU-Net builds it, and
torchvision's video classifiers (VIDEO). Each is wrapped so that its forward
takes one tensor and returns logits [rows, classes] (a language model's
[batch * tokens, vocabulary], as Hugging Face computes its own loss; the
U-Nets' per-pixel [batch, classes, H, W] and per-voxel [..., D, H, W]). Dropout, attention dropout
included, stays as each config has it by default (GPT-2 and BERT 0.1 on the
attention weights), drawn by zoo_check's copy of remat's generator.

  MODELS[name] = Outside(build, example, classes, per_token, per_pixel)
"""

import dataclasses

import torch
import torch.nn as nn

BATCH, TOKENS, VOCAB, IMAGE = 2, 16, 128, 32
VOLUME = 12  # the side of the 3-D U-Net's one-channel volumes


@dataclasses.dataclass
class Outside:
    build: callable    # () -> nn.Module in training mode
    example: callable  # (generator) -> the one input
    classes: int       # logits columns (labels are drawn below this)
    per_token: bool = False  # one label per token (a language model)
    per_pixel: bool = False  # one label per pixel (segmentation logits)


def tokens(generator):
    return torch.randint(0, VOCAB, (BATCH, TOKENS), generator=generator)


def images(generator):
    return torch.randn(BATCH, 3, IMAGE, IMAGE, generator=generator)


def volumes(generator):
    return torch.randn(BATCH, 1, VOLUME, VOLUME, VOLUME, generator=generator)


def clips(generator):
    """Video clips [N, 3, frames, H, W] for torchvision's video models."""
    return torch.randn(BATCH, 3, 4, IMAGE, IMAGE, generator=generator)


def clips_at(frames, size):
    """Clips of another size, for S3D, whose last average pooling takes a
    2x7x7 window (16 frames at 224x224 at least)."""
    def example(generator):
        return torch.randn(BATCH, 3, frames, size, size, generator=generator)
    return example


def images_at(size):
    """Images of another size, for a model whose check at IMAGE is
    ill-conditioned (batch norm over 2 x 2 x 2 values in its last stage)."""
    def example(generator):
        return torch.randn(BATCH, 3, size, size, generator=generator)
    return example


class Autocast(nn.Module):
    """The model's forward under torch.autocast on the CPU, as a training
    loop runs it (parameters stay f32)."""

    def __init__(self, model, dtype):
        super().__init__()
        self.model = model
        self.dtype = dtype

    def forward(self, x):
        with torch.autocast("cpu", dtype=self.dtype):
            return self.model(x)


class LanguageModelLogits(nn.Module):
    """A Hugging Face causal or masked language model's logits, flattened
    to [batch * tokens, vocabulary]."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids):
        logits = self.model(input_ids=input_ids, use_cache=False).logits
        return logits.flatten(0, 1)


class ClassifierLogits(nn.Module):
    """A Hugging Face classifier's logits [batch, classes]."""

    def __init__(self, model, key):
        super().__init__()
        self.model = model
        self.key = key

    def forward(self, x):
        return self.model(**{self.key: x}).logits


def hf_gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel
    config = GPT2Config(n_layer=2, n_embd=64, n_head=4, vocab_size=VOCAB,
                        n_positions=64, bos_token_id=0,
                        eos_token_id=0, attn_implementation="sdpa")
    return LanguageModelLogits(GPT2LMHeadModel(config))


def hf_llama():
    from transformers import LlamaConfig, LlamaForCausalLM
    config = LlamaConfig(hidden_size=64, intermediate_size=128,
                         num_hidden_layers=2, num_attention_heads=4,
                         num_key_value_heads=2, vocab_size=VOCAB,
                         max_position_embeddings=64, bos_token_id=0,
                         eos_token_id=0, pad_token_id=0,
                         attn_implementation="sdpa")
    return LanguageModelLogits(LlamaForCausalLM(config))


def hf_bert():
    from transformers import BertConfig, BertForSequenceClassification
    config = BertConfig(hidden_size=64, intermediate_size=128,
                        num_hidden_layers=2, num_attention_heads=4,
                        vocab_size=VOCAB, max_position_embeddings=64,
                        num_labels=10, attn_implementation="sdpa")
    return ClassifierLogits(BertForSequenceClassification(config), "input_ids")


def hf_vit():
    from transformers import ViTConfig, ViTForImageClassification
    config = ViTConfig(image_size=IMAGE, patch_size=8, hidden_size=64,
                       intermediate_size=128, num_hidden_layers=2,
                       num_attention_heads=4, num_labels=10,
                       attn_implementation="sdpa")
    return ClassifierLogits(ViTForImageClassification(config), "pixel_values")


def video_model(name):
    def build():
        import torchvision
        return torchvision.models.get_model(name, num_classes=10).train()
    return build


def timm_model(name, **kwargs):
    def build():
        import timm
        return timm.create_model(name, pretrained=False, num_classes=10,
                                 **kwargs)
    return build


class UNet(nn.Module):
    """Two levels of the U-Net as the tutorials write it: convolutions and
    batch norm down, a transposed convolution up, the skip concatenated,
    per-pixel logits [N, 10, H, W] for a per-pixel cross entropy."""

    def __init__(self):
        super().__init__()

        def block(cin, cout):
            return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1),
                                 nn.BatchNorm2d(cout), nn.ReLU(inplace=True))
        self.down = block(3, 16)
        self.pool = nn.MaxPool2d(2)
        self.bottom = block(16, 32)
        self.up = nn.ConvTranspose2d(32, 16, 2, stride=2)
        self.merge = block(32, 16)
        self.head = nn.Conv2d(16, 10, 1)

    def forward(self, x):
        skip = self.down(x)
        y = self.up(self.bottom(self.pool(skip)))
        return self.head(self.merge(torch.cat([y, skip], dim=1)))


class UNet3d(nn.Module):
    """Two levels of a 3-D U-Net for volumes as nnU-Net builds it: a
    strided convolution down instead of pooling, a transposed 3-D
    convolution up, the skip concatenated, per-voxel logits [N, 4, D, H, W]
    for a per-voxel cross entropy."""

    def __init__(self):
        super().__init__()

        def block(cin, cout, stride=1):
            return nn.Sequential(
                nn.Conv3d(cin, cout, 3, stride=stride, padding=1),
                nn.BatchNorm3d(cout), nn.ReLU(inplace=True))
        self.down = block(1, 8)
        self.bottom = block(8, 16, stride=2)
        self.up = nn.ConvTranspose3d(16, 8, 2, stride=2)
        self.merge = block(16, 8)
        self.head = nn.Conv3d(8, 4, 1)

    def forward(self, x):
        skip = self.down(x)
        y = self.up(self.bottom(skip))
        return self.head(self.merge(torch.cat([y, skip], dim=1)))


class LSTMLanguageModel(nn.Module):
    """The word language model of PyTorch's examples: embedding, a 2-layer
    LSTM (batch_first), a linear decoder; logits [batch * tokens, vocab]."""

    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, 32)
        self.lstm = nn.LSTM(32, 32, num_layers=2, batch_first=True)
        self.decoder = nn.Linear(32, VOCAB)

    def forward(self, input_ids):
        output, _ = self.lstm(self.embedding(input_ids))
        return self.decoder(output).flatten(0, 1)


MODELS = {
    "hf-gpt2": Outside(hf_gpt2, tokens, VOCAB, per_token=True),
    "hf-llama": Outside(hf_llama, tokens, VOCAB, per_token=True),
    "hf-bert": Outside(hf_bert, tokens, 10),
    "hf-vit": Outside(hf_vit, images, 10),
    "timm-resnet18": Outside(timm_model("resnet18"), images, 10),
    "timm-convnext_atto": Outside(timm_model("convnext_atto"), images, 10),
    "timm-efficientnet_b0": Outside(timm_model("efficientnet_b0"), images, 10),
    "timm-vit_tiny": Outside(timm_model("vit_tiny_patch16_224",
                                        img_size=IMAGE, patch_size=8),
                             images, 10),
    "unet": Outside(UNet, images, 10, per_pixel=True),
    "unet3d": Outside(UNet3d, volumes, 4, per_pixel=True),
    "lstm": Outside(LSTMLanguageModel, tokens, VOCAB, per_token=True),
}

# More timm families, one small model each (a benchmark, not CI:
# zoo_check.py --models=timm-families), at 32x32 (ViT-like ones with patch 8):
# mobile CNNs, MLP-mixers, hybrids, the LSTM-based sequencer, LeViT's
# attention biases, EdgeNeXt's F.normalize, EfficientViT's autocast-disabled
# attention.
def _vit_like(name):
    return timm_model(name, img_size=IMAGE, patch_size=8)


TIMM_FAMILIES = {
    "timm-" + name: Outside(build, images, 10) for name, build in {
        "mobilevit_xxs": timm_model("mobilevit_xxs"),
        "poolformer_s12": timm_model("poolformer_s12"),
        "ghostnet_100": timm_model("ghostnet_100"),
        "regnety_002": timm_model("regnety_002"),
        "dla34": timm_model("dla34"),
        "tinynet_e": timm_model("tinynet_e"),
        "mobilenetv4_conv_small": timm_model("mobilenetv4_conv_small"),
        "edgenext_xx_small": timm_model("edgenext_xx_small"),
        "fastvit_t8": timm_model("fastvit_t8"),
        "hgnetv2_b0": timm_model("hgnetv2_b0"),
        "resnest14d": timm_model("resnest14d"),
        "efficientvit_b0": timm_model("efficientvit_b0"),
        "mixnet_s": timm_model("mixnet_s"),
        "rexnet_100": timm_model("rexnet_100"),
        "lcnet_050": timm_model("lcnet_050"),
        "deit_tiny": _vit_like("deit_tiny_patch16_224"),
        "cait_xxs24": _vit_like("cait_xxs24_224"),
        "xcit_nano_12": _vit_like("xcit_nano_12_p16_224"),
        "sequencer2d_s": timm_model("sequencer2d_s"),
        "mobileone_s0": timm_model("mobileone_s0"),
        "convformer_s18": timm_model("convformer_s18"),
        "levit_128s": timm_model("levit_128s", img_size=IMAGE),
        "coat_lite_tiny": timm_model("coat_lite_tiny", img_size=IMAGE),
        "twins_pcpvt_small": timm_model("twins_pcpvt_small", img_size=IMAGE),
    }.items()
}
TIMM_FAMILIES["timm-inception_next_tiny"] = Outside(
    timm_model("inception_next_tiny"), images_at(64), 10)

# torchvision's video classifiers over clips of 4 frames at 32x32 (a
# benchmark, not CI: zoo_check.py --models=video): 3-D convolutions, their
# (2+1)-D factorization, global 3-D average pooling; S3D's separable 3-D
# convolutions and 3-D max and average pooling over 16 frames at 224x224;
# Swin3D's shifted 3-D windows of attention over 4 frames at 64x64.
VIDEO = {
    "video-" + name: Outside(video_model(name), clips, 10)
    for name in ("r3d_18", "mc3_18", "r2plus1d_18")
}
VIDEO["video-s3d"] = Outside(video_model("s3d"), clips_at(16, 224), 10)
VIDEO["video-swin3d_t"] = Outside(video_model("swin3d_t"), clips_at(4, 64), 10)
